"""The numba kernel: the only part of durak_sim (with the strategy plugins) that imports numba."""
