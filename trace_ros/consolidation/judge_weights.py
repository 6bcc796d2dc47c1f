"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` (31134 pairs, 1170 updates)."""

INTERCEPT = -7.0305
THRESHOLD = 0.75
WEIGHTS = (
    +1.1344,  # cos
    +3.0203,  # shared_salient
    -2.7276,  # shared
    +0.0534,  # overlap
    +0.3719,  # replaced
    +0.8348,  # new_values
    +0.6894,  # old_values
    +0.6792,  # same_values
    +2.2304,  # marks_change
    -0.2032,  # continues
    +0.5976,  # other_holder
    +0.2297,  # negates_shared
    +1.3644,  # distance
    -1.6716,  # short_new
    -3.2870,  # long_new
    -2.6564,  # long_old
    -0.7870,  # another_holder
    -0.0469,  # another_thing
    -2.8380,  # addresses_new
    -2.3719,  # addresses_old
    +1.0976,  # shared_name
    +0.4317,  # shared_short
    +1.7615,  # closest
    +0.6979,  # tied
    +1.1315,  # nearest
)
