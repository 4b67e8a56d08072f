"""Built-in strategy plugins, one module each; importable as ``durak_sim.strategies``.

Every module registers itself with ``durak_sim.registry.register_strategy`` when imported;
``durak_sim.registry.load_builtins`` imports them all.
"""
