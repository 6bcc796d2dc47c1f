"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (10594 pairs, 528 updates)."""

INTERCEPT = -7.2343
THRESHOLD = 0.7
WEIGHTS = (
    +1.9518,  # cos
    +3.7097,  # shared_salient
    -3.2687,  # shared
    +1.8162,  # overlap
    +0.5946,  # replaced
    +0.9365,  # new_values
    +1.0076,  # old_values
    +0.9094,  # same_values
    +2.5162,  # marks_change
    +0.0267,  # continues
    +0.2509,  # other_holder
    +0.2070,  # negates_shared
    +0.6824,  # distance
    -1.4485,  # short_new
    -2.6826,  # long_new
    -2.3974,  # long_old
    -0.8070,  # another_holder
    -0.2035,  # another_thing
    +2.2420,  # closest
)
