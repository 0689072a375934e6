"""pbem's rules engine: pure game rules with no I/O, clock or randomness.

    >>> import engine
    >>> rules = engine.create("ataxx")
    >>> start = rules.start()
    >>> move = rules.parse(start, "F 2")
    >>> rules.format(start, move)
    'f2'
    >>> rules.outcome(rules.apply(start, move)).scores
    (3, 2)
"""

from pbem_engine.ataxx.game import Assimilation, Ataxx, Infection
from pbem_engine.common.base import Effects, Option, Outcome, Rules, Termination
from pbem_engine.common.errors import BadOption, EngineError, IllegalMove, InvalidMove, MoveError
from pbem_engine.go.game import CaptureGo
from pbem_engine.myriades.game import Infinito, Myriades
from pbem_engine.registry import create, lookup, names, register

# The registry: adding a game is one module and one line here.
for _game in (Ataxx, Infection, Assimilation, CaptureGo, Myriades, Infinito):
    register(_game)

__all__ = [
    "BadOption", "EngineError", "MoveError", "InvalidMove", "IllegalMove",
    "Effects", "Option", "Outcome", "Rules", "Termination",
    "create", "lookup", "names", "register",
    "Ataxx", "Infection", "Assimilation", "CaptureGo", "Myriades", "Infinito",
]
