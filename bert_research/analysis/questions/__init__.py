"""The classic BERT questions, answered by measurement (docs/questions.md).

One command per question (python -m bert_research.analysis.questions NAME ...),
each printing one Markdown table:

  tied     --init_checkpoint=C [--bert_config_file=F]
           is the MLM output layer the word-embedding table? (the checkpoint's
           variables; with a config, our model's variables and gradients)
  scale    --bert_config_file --init_checkpoint --vocab_file [--sentences=N]
           attention softmax with and without the 1/sqrt(d) scale on BBC text:
           entropy and the share of saturated rows (max prob > 0.99)
  decode   --init_checkpoint=C [--samples=N --max_positions=P]
           token and position recovered from word + position + segment sums
  limits   --bert_config_file=F
           what our model does past max_position_embeddings and with a
           segment id >= type_vocab_size
  flops    [--hidden=D --intermediate=F]
           attention vs feed-forward FLOPs per layer against sequence length
  pooling  --bert_config_file --init_checkpoint --vocab_file [--per_category=N]
           [CLS] vs mean pooling for topic similarity on BBC articles
  long_text --bert_config_file --init_checkpoint --vocab_file
           [--max_articles=N --max_seq_length=S --doc_stride=K]
           BBC topic by a logistic regression on frozen article vectors:
           the first window (truncation) vs the mean of sliding windows
  self_attention --bert_config_file --init_checkpoint --vocab_file
           [--sentences=N] how much weight each token puts on itself, with
           the trained Q/K and with Q = K = V = the layer's input
  nonlinearity --bert_config_file --init_checkpoint --vocab_file
           [--max_articles=N] GELU, softmax and LayerNorm replaced one at a
           time: the change of the mean-pooled vectors and a topic probe
  layers   --bert_config_file --init_checkpoint --vocab_file [--sentences=N
           --max_seq_length=S --max_pairs=M --seed=K --output_plot=PNG]
           position through the layers on BBC sentences: linear probes of
           each token's index and of the order of two tokens (held-out
           sentences), and how much each layer's output changes when the
           words are shuffled
  masking  [--rates=0.1,0.15,0.25,0.4 --seeds=N --steps=N ...]
           the masking rate: tiny BERTs pretrained by masked LM on a
           synthetic language whose topic only bigrams reveal, a topic
           probe on their frozen vectors, per rate and seed

One module per question: its pure functions (numpy arrays, shapes in
their docstrings) and its `run_<name>(args)`; `common` holds what several
share (loading a checkpoint, `graph_forward`, the tokenizer, the BBC
sentences, the topic probe), `cli` the parser and `main`.
"""

from bert_research.analysis.questions.cli import COMMANDS
from bert_research.analysis.questions.cli import main
