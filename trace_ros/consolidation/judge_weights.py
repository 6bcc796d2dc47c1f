"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (10594 pairs, 528 updates)."""

INTERCEPT = -6.8194
THRESHOLD = 0.7
WEIGHTS = (
    +2.2956,  # cos
    +3.3199,  # shared_salient
    -3.0467,  # shared
    +1.5926,  # overlap
    +0.5231,  # replaced
    +0.7759,  # new_values
    +0.8235,  # old_values
    +0.7368,  # same_values
    +2.3977,  # marks_change
    +0.0112,  # continues
    +0.2349,  # other_holder
    +0.2718,  # negates_shared
    +0.8591,  # distance
    -1.5549,  # short_new
    -2.6516,  # long_new
    -2.2572,  # long_old
    -0.8513,  # another_holder
    -0.1889,  # another_thing
    -2.2458,  # addresses_new
    -2.2454,  # addresses_old
    +2.1084,  # closest
)
