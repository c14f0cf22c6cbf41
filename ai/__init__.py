"""Bots: the ISMCTS search and playout policies, over the engine's Game protocol."""

import engine  # noqa: F401 - first: engine.build_mode decides which build of ai.ismcts loads
