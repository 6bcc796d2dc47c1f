"""A tiny Qwen2 model and word-level tokenizer, built on the fly (no downloads)."""

from __future__ import annotations

from pathlib import Path

import pytest

WORDS = ("the a robot parcel pickup thursday tuesday coffee black mug red kitchen counter when is "
         "what where did alice say answer unknown evidence question type fact [ ] : , . ? src").split()


@pytest.fixture(scope="session")
def tiny_qwen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch", reason="torch is needed for the model tests")
    transformers = pytest.importorskip("transformers", reason="transformers is needed")
    pytest.importorskip("bitsandbytes", reason="bitsandbytes is needed for NF4")
    from tokenizers import Tokenizer, models, pre_tokenizers

    out = tmp_path_factory.mktemp("tiny-qwen")
    specials = ["<pad>", "<eos>", "[UNK]"]
    vocab = {tok: i for i, tok in enumerate(specials + sorted(set(WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]",
                                                eos_token="<eos>", pad_token="<pad>")
    fast.save_pretrained(out)
    torch.manual_seed(0)
    cfg = transformers.Qwen2Config(
        vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
        eos_token_id=vocab["<eos>"], pad_token_id=vocab["<pad>"], bos_token_id=vocab["<eos>"])
    transformers.Qwen2ForCausalLM(cfg).save_pretrained(out)
    return out
