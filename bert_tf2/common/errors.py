"""The one exception type for bad user input (defined in tokenization.errors).

It lives in `tokenization`, the project's lowest package, so that
`modeling`, `tokenization`, `optimization` and `bert_tf2` raise one and the
same class without `modeling` importing `bert_tf2`. Import it from here or
from `bert_tf2.common`.
"""

from tokenization.errors import InputError

__all__ = ["InputError"]
