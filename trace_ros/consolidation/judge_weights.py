"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (31564 pairs, 1299 updates)."""

INTERCEPT = -7.3071
THRESHOLD = 0.75
WEIGHTS = (
    +0.7717,  # cos
    +2.7498,  # shared_salient
    -2.3024,  # shared
    +0.5619,  # overlap
    -0.4214,  # replaced
    +0.5142,  # new_values
    +0.5896,  # old_values
    +0.6570,  # same_values
    +1.8462,  # marks_change
    -0.2270,  # continues
    +0.5533,  # other_holder
    +0.2888,  # negates_shared
    +1.3511,  # distance
    -1.3802,  # short_new
    -3.3477,  # long_new
    -2.6780,  # long_old
    -0.8175,  # another_holder
    -0.0297,  # another_thing
    -2.4060,  # addresses_new
    -2.3205,  # addresses_old
    +1.0016,  # shared_name
    +0.5314,  # shared_short
    +0.7507,  # perfect_new
    +0.5512,  # reason_new
    +1.5107,  # start_new
    +1.1056,  # past_opening
    +1.2720,  # replaces
    +1.1569,  # contrasts
    +1.6653,  # closest
    +0.6621,  # tied
    +1.0130,  # nearest
)
