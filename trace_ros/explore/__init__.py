"""The explorer: a local, read-only web view of a ledger's sources, facts, update
chains and a question's evidence (``trace-ros explore``)."""
