"""BERT modeling on TensorFlow 2 / Keras 3, with the original's names.

`import modeling` gives what users of google-research/bert's modeling.py
import (BertConfig, BertModel, gelu, get_activation, get_shape_list,
create_initializer, layer_norm, dropout, ...), plus:

  heads:       MaskedLMHead, NextSentenceHead, ClassificationHead, SquadHead
  losses:      masked_lm_loss, next_sentence_loss, classification_loss,
               squad_loss
  checkpoints: init_from_checkpoint, original_variable_names,
               save_checkpoint, write_checkpoint, relist_checkpoints
  HF import:   modeling.hf_import.convert_hf_checkpoint

See docs/modeling.md.
"""

from modeling.activations import gelu
from modeling.activations import gelu_exact
from modeling.activations import get_activation
from modeling.attention import SelfAttention
from modeling.bert_model import BertModel
from modeling.checkpoint import check_config_matches_checkpoint
from modeling.checkpoint import checkpoint_sizes
from modeling.checkpoint import get_assignment_map_from_checkpoint
from modeling.checkpoint import init_from_checkpoint
from modeling.checkpoint import InitReport
from modeling.checkpoint import is_finite_array
from modeling.checkpoint import non_finite_phrase
from modeling.checkpoint import original_variable_names
from modeling.checkpoint import resolve_checkpoint
from modeling.checkpoint_writer import relist_checkpoints
from modeling.checkpoint_writer import save_checkpoint
from modeling.checkpoint_writer import write_checkpoint
from modeling.config import BertConfig
from modeling.embeddings import Embeddings
from modeling.heads import ClassificationHead
from modeling.heads import MaskedLMHead
from modeling.heads import NextSentenceHead
from modeling.heads import SquadHead
from modeling.inputs import check_sequence_length
from modeling.inputs import check_vocab_size
from modeling.layers import Dense
from modeling.layers import LayerNorm
from modeling.layers import OriginalNamed
from modeling.losses import classification_loss
from modeling.losses import masked_lm_loss
from modeling.losses import next_sentence_loss
from modeling.losses import squad_loss
from modeling.losses import squad_span_loss
from modeling.ops import assert_rank
from modeling.ops import attention_mask_adder
from modeling.ops import create_attention_mask_from_input_mask
from modeling.ops import create_initializer
from modeling.ops import dropout
from modeling.ops import gather_indexes
from modeling.ops import get_shape_list
from modeling.ops import layer_norm
from modeling.ops import reshape_from_matrix
from modeling.ops import reshape_to_matrix
from modeling.transformer import TransformerLayer
