"""durak-sim: measure how strong Durak-playing AIs are."""
__version__ = "0.1.0"
