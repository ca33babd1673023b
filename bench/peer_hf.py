"""Benchmark peer: Hugging Face transformers BERT on PyTorch.

train: `BertForPreTraining` (MLM labels -100 except the masked positions, NSP
labels) with torch AdamW (weight decay 0.01, eps 1e-6) and grad-norm
clipping at 1.0; finetune: `BertForSequenceClassification`; infer:
`BertModel` under `torch.inference_mode()`. bfloat16 uses `torch.autocast`.

    python -m bench.peer_hf --mode train --config minilm
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


def build(args):
  import torch  # pylint: disable=g-import-not-at-top
  import transformers  # pylint: disable=g-import-not-at-top
  device = "cuda" if args.device == "gpu" else "cpu"
  if device == "cpu":
    torch.set_num_threads(os.cpu_count())
  shape = shapes.SHAPES[args.config]
  cfg = transformers.BertConfig(
      vocab_size=shape["vocab_size"], hidden_size=shape["hidden_size"],
      num_hidden_layers=shape["num_hidden_layers"],
      num_attention_heads=shape["num_attention_heads"],
      intermediate_size=shape["intermediate_size"],
      max_position_embeddings=512, type_vocab_size=2,
      hidden_act="gelu_new")  # the original's tanh-approximate GELU
  batch = shapes.make_batch(shape, args.batch_size, args.seq_length,
                            args.num_masked)
  t = {k: torch.from_numpy(v).long().to(device) for k, v in batch.items()
       if k != "masked_lm_weights"}
  inputs = dict(input_ids=t["input_ids"], attention_mask=t["input_mask"],
                token_type_ids=t["segment_ids"])
  autocast = torch.autocast(device_type=device, dtype=torch.bfloat16,
                            enabled=args.precision == "bfloat16")
  sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
  if args.mode == "infer":
    model = transformers.BertModel(cfg).to(device).eval()

    def infer_step():
      with torch.inference_mode(), autocast:
        out = model(**inputs)
        out.last_hidden_state.float().cpu(), out.pooler_output.float().cpu()
    return infer_step
  if args.mode == "train":
    model = transformers.BertForPreTraining(cfg).to(device).train()
    labels = torch.full_like(t["input_ids"], -100)
    labels.scatter_(1, t["masked_lm_positions"], t["masked_lm_ids"])
    extra = dict(labels=labels,
                 next_sentence_label=t["next_sentence_labels"][:, 0])
  else:
    cfg.num_labels = 2
    model = transformers.BertForSequenceClassification(cfg).to(device).train()
    extra = dict(labels=t["label_ids"])
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4,
                                weight_decay=0.01, eps=1e-6)

  def train_step():
    with autocast:
      loss = model(**inputs, **extra).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    loss.item()
    sync()
  return train_step


def main():
  args = timing.peer_arg_parser(__doc__).parse_args()
  timing.report("Hugging Face (PyTorch)", args, build(args))


if __name__ == "__main__":
  main()
