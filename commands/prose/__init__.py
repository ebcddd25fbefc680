"""Grounded prose: what a language model may write for a digest, and the checks it must pass.

Everything here is pure (no network, no storage): the facts of one part of a digest as data
(``facts``), the request that carries them (``prompt``), the verifier every answer goes through
before a reader sees it (``verify``, over ``figures``: the numbers, names and flag words of a
text), the content key of the sentence cache (``key.cache_key``) and the step that puts
verified sentences in place of the computed lines (``apply``). ``bot.prose`` talks to the model.
"""
