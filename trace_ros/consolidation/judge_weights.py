"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (12704 pairs, 868 updates)."""

INTERCEPT = -6.8590
THRESHOLD = 0.7
WEIGHTS = (
    +2.6639,  # cos
    +3.4598,  # shared_salient
    -3.0068,  # shared
    +0.2084,  # overlap
    +0.5245,  # replaced
    +0.7611,  # new_values
    +0.6574,  # old_values
    +0.6813,  # same_values
    +2.2455,  # marks_change
    -0.1320,  # continues
    +0.4275,  # other_holder
    +0.2425,  # negates_shared
    +1.1209,  # distance
    -1.7300,  # short_new
    -2.8971,  # long_new
    -2.4322,  # long_old
    -0.6436,  # another_holder
    -0.2312,  # another_thing
    -2.4613,  # addresses_new
    -2.3311,  # addresses_old
    +1.6500,  # shared_name
    +0.7404,  # shared_short
    +2.0451,  # closest
)
