"""The ground floor both roads read text with: time expressions and their anchors
(``timeanchor``), the calendar's names and the one reading of a day of the month
(``monthday``), the shared vocabulary (``vocab``: event nouns, who is the robot) and the
one clause cut (``clauses``).

Consolidation (road 2) and query (road 3) import from here and never from each other.
"""
