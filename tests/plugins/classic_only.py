"""A test plugin: a strategy that declares only the two-player default game (``plays``
left at its default), so that commands seating it elsewhere must refuse it."""
from durak_sim.registry import register_strategy
from durak_sim.strategies.random import decide

register_strategy("classiconly", decide, description="random, two-player default game only")
