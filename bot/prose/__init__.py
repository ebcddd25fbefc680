"""Grounded prose at the edge: asking an OpenAI-compatible model to word a digest's parts.

``writer.ProseWriter.write`` takes a Reply and returns it with verified sentences in place of
the computed lines of every part the model got right (``commands.prose``: facts, prompt,
verifier); ``client`` is the HTTP client of the chat-completions endpoint; ``config`` reads the
``PRDIGEST_LLM_*`` settings. Without them nothing here runs and every answer is computed text.
"""
