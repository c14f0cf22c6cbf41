"""Trex's learned trick play (``ai.playouts.trex.LearnedTricks``): its weights, written by

    python -m ai.train_playout --matches 20 --seed 6000 --holdout 5 --choices var/trex-choices-6000.jsonl

One row per contract class (``CONTRACT_CLASSES``), one column per feature
(``FEATURE_NAMES``). Do not edit: run the command again.

Fitted on 8903 trick choices of the normal level's self-play, held out 2934:
held-out log loss 0.730 a choice (the current hook 1.109, uniform
1.390); the most likely card is normal's in 74.3% of them (the
hook's card: 73.9%).
"""

WEIGHTS: tuple[float, ...] = (
    # collections
    0.8237, 0.7663, 4.9183, 0.0000, 0.0000, 0.0000, 0.0000, 2.1468, 2.2020, 0.0000, 1.2200, -0.9369, -2.3148, -1.9693, 1.5462, 6.5765,
    # king_of_hearts
    1.3237, 0.2099, 2.4364, 0.0000, -1.1871, -1.6667, 3.4849, 0.7430, 0.8878, 1.2912, 0.8133, 0.1941, -0.8697, 0.6539, 2.9464, 4.5643,
    # queens
    2.2968, 1.2448, 2.9951, 0.6277, -3.2064, 0.0562, 5.1439, 0.9934, 0.8546, -1.2312, 0.6109, 0.0680, -1.5965, -0.3621, 2.8482, 6.9665,
    # diamonds
    2.5885, 0.5107, 4.5979, 0.8448, -0.8448, -2.2851, 3.9245, 2.1208, 2.2409, 1.6394, 0.7212, -0.8638, -3.8010, -2.3344, 2.2805, 6.8890,
    # pooled
    2.7274, 0.6875, 3.6317, 0.5208, -2.8427, 0.2138, 6.4925, 1.4257, 1.3853, -0.8835, 0.8683, -0.2757, -2.1881, -1.2363, 3.0225, 7.2175,
)
