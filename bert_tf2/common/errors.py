"""The one exception type for bad user input (defined in tokenization.errors).

It lives in `tokenization`, the project's lowest package, so that
`modeling`, `tokenization`, `optimization` and `bert_tf2` raise one and the
same class without `modeling` importing `bert_tf2`. Import it from
`tokenization.errors` (or `bert_tf2.common`). This module only re-exports it
and goes once bert_tf2/ner/{preprocessor,text_model}.py import it from
there.
"""

from tokenization.errors import InputError

__all__ = ["InputError"]
