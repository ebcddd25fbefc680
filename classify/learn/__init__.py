"""Learning a rule profile from a repository's own history (``prdigest profile learn``).

Pure domain code: the caller reads the cache, a clone's tree and CODEOWNERS, and passes them in.
"""

from classify.learn.learner import learn
from classify.learn.model import History, Learned

__all__ = ["History", "Learned", "learn"]
