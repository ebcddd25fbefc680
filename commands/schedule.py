"""When a subscription's digests fall due: ``classify.schedule``.

Kept only for ``bot/delivery/deliverer.py``, which is being reworked elsewhere and imports these
names from here; once it imports ``classify.schedule`` this module goes.
"""

from classify.schedule import DEFAULT_CATCHUP, Due, owed

__all__ = ["DEFAULT_CATCHUP", "Due", "owed"]
