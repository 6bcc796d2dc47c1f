"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (12729 pairs, 868 updates)."""

INTERCEPT = -6.8812
THRESHOLD = 0.7
WEIGHTS = (
    +2.6769,  # cos
    +3.4621,  # shared_salient
    -3.0235,  # shared
    +0.3364,  # overlap
    +0.5320,  # replaced
    +0.7429,  # new_values
    +0.6561,  # old_values
    +0.6788,  # same_values
    +2.2618,  # marks_change
    -0.1441,  # continues
    +0.3517,  # other_holder
    +0.2424,  # negates_shared
    +1.1473,  # distance
    -1.7606,  # short_new
    -2.9473,  # long_new
    -2.4711,  # long_old
    -0.5701,  # another_holder
    -0.2188,  # another_thing
    -2.4851,  # addresses_new
    -2.3551,  # addresses_old
    +1.5155,  # shared_name
    +0.7323,  # shared_short
    +2.0407,  # closest
)
