"""BERT pretraining data: the original create_pretraining_data, faster.

    import tokenization
    from bert_tf2.pretraining_data import DataOptions, run
    tokenizer = tokenization.FullTokenizer("vocab.txt", do_lower_case=True)
    stats = run(["corpus.txt"], ["out.tfrecord"], tokenizer,
                DataOptions(max_seq_length=128, dupe_factor=10))

See docs/pretraining_data.md.
"""

from bert_tf2.pretraining_data.documents import CorpusStats
from bert_tf2.pretraining_data.options import DataOptions
from bert_tf2.pretraining_data.pipeline import run

__all__ = ["CorpusStats", "DataOptions", "run"]
