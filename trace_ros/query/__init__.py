"""Road 3: plan → recall routes → pack → reader → checks."""
