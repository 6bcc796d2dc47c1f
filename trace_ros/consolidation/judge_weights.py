"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (8273 pairs, 93 updates)."""

INTERCEPT = -7.4314
THRESHOLD = 0.6
WEIGHTS = (
    +0.4604,  # cos
    +1.5349,  # shared_salient
    -1.9040,  # shared
    +1.2186,  # overlap
    +0.8421,  # replaced
    +1.5890,  # new_values
    +1.6144,  # old_values
    +1.0539,  # same_values
    +2.5189,  # marks_change
    +0.7363,  # continues
    -0.1200,  # other_holder
    +1.0084,  # negates_shared
    -0.1861,  # distance
    -0.3469,  # short_new
    -1.9531,  # long_new
    -1.5935,  # long_old
    +2.3712,  # closest
)
