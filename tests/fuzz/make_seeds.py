#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (stdlib only): a tiny valid checkpoint ("JSON\\0BLOB", CRC as
@@@@@@@@, see fuzz_checkpoint.cc) in a few variants, some awkward text for the line reader, the
fixtures' SentencePiece models and vocabularies, tiny .npz archives (stored and deflated), a Marian
model.bin and Marian decoder.yml files."""
import base64
import gzip
import io
import json
import math
import os
import struct
import sys
import tarfile
import zipfile


def tiny_checkpoint(dtype="f16", positions="sinusoidal-concat", tied=True):
    d, ffn, vocab = 4, 4, 3
    shapes = [("encoder.embed_tokens", [vocab, d])]
    if not tied:
        shapes.append(("output.weight", [vocab, d]))
    for stack, attns in (("encoder", ["self_attn"]), ("decoder", ["self_attn", "cross_attn"])):
        s = f"{stack}.layers.0"
        for a in attns:
            for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
                shapes += [(f"{s}.{a}.{p}.weight", [d, d]), (f"{s}.{a}.{p}.bias", [d])]
            shapes += [(f"{s}.{a}_norm.weight", [d]), (f"{s}.{a}_norm.bias", [d])]
        shapes += [(f"{s}.fc1.weight", [ffn, d]), (f"{s}.fc1.bias", [ffn]), (f"{s}.fc2.weight", [d, ffn]),
                   (f"{s}.fc2.bias", [d]), (f"{s}.ffn_norm.weight", [d]), (f"{s}.ffn_norm.bias", [d])]
    if positions == "table":
        shapes += [("encoder.positions", [8, d]), ("decoder.positions", [8, d])]
    item = 2 if dtype == "f16" else 4
    blob, tensors = b"", []
    for name, shape in shapes:
        blob += b"\0" * (-len(blob) % 64)
        n = 1
        for x in shape:
            n *= x
        data = struct.pack(f"<{n}e" if dtype == "f16" else f"<{n}f", *([0.5] * n))
        tensors.append({"name": name, "dtype": dtype, "shape": shape, "offset": len(blob), "nbytes": len(data)})
        blob += data
    meta = {
        "format": "nmt-checkpoint", "version": 1,
        "config": {"d_model": d, "n_heads": 2, "encoder_layers": 1, "decoder_layers": 1, "ffn_dim": ffn,
                   "activation": "relu", "norm": "post", "final_norm": False, "layer_norm_eps": 1e-5,
                   "positions": positions, "max_positions": 8, "scale_embedding": True,
                   "shared_embeddings": True, "tied_output": tied, "output_bias": False,
                   "src_vocab_size": vocab, "tgt_vocab_size": vocab},
        "tokens": {"pad": 0, "unk": 1, "eos": 2, "decoder_start": 0},
        "decoding": {"beam_size": 2, "length_penalty": 1.0, "max_length_a": 1.0, "max_length_b": 2,
                     "max_length": 8, "ban_unk": False, "renormalize": True},
        "tokenizer": {"source_spm": "s.model", "target_spm": "s.model", "source_vocab": None,
                      "target_vocab": None, "add_eos": True},
        "weights": {"file": "weights.bin", "size": len(blob), "crc32": "@@@@@@@@"},
        "tensors": tensors,
    }
    return json.dumps(meta).encode() + b"\0" + blob


def npy(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{x}, " for x in shape))
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def tiny_npz(compression):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        z.writestr("Wemb.npy", npy("<f4", [2, 3], struct.pack("<6f", *range(6))))
        z.writestr("bias.npy", npy("<f2", [4], b"\x00\x3c" * 4))
        z.writestr("special:model.yml.npy", npy("|i1", [5], b"a: 1\n"))
    return buf.getvalue()


def marian_bin(items):
    """Marian's binary model format (marian-dev src/common/binary.cpp): (name, type, shape, data) items."""
    padded = [data + b"\0" * (-len(data) % 256) for _, _, _, data in items]
    out = struct.pack("<QQ", 1, len(items))
    for (name, kind, shape, _), data in zip(items, padded):
        out += struct.pack("<QQQQ", len(name) + 1, kind, len(shape), len(data))
    out += b"".join(name.encode() + b"\0" for name, _, _, _ in items)
    out += b"".join(struct.pack(f"<{len(shape)}i", *shape) for _, _, shape, _ in items)
    gap = (len(out) + 8) // 256 * 256 + 256 - len(out) - 8
    return out + struct.pack("<Q", gap) + b"\0" * gap + b"".join(padded)


def safetensors(tensors):
    """A safetensors file: each (dtype, shape) gets zero bytes; "__metadata__" passes through."""
    header, offset = {}, 0
    for name, value in tensors.items():
        if name == "__metadata__":
            header[name] = value
            continue
        dtype, shape = value
        size = (4 if dtype == "F32" else 2) * math.prod(shape)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + bytes(offset)


def torch_state_dict(legacy, dtype="Float", numel=6, offset=0, shape=(2, 3), stride=(3, 1)):
    """The pickle torch.save writes for {"w": tensor}, opcode by opcode (protocol 2)."""
    uni = lambda s: b"X" + struct.pack("<I", len(s)) + s.encode()
    ints = lambda v: b"(" + b"".join(b"J" + struct.pack("<i", x) for x in v) + b"t"
    return (b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01(" + uni("w") +
            b"ctorch._utils\n_rebuild_tensor_v2\nq\x02((" + uni("storage") + b"ctorch\n" + dtype.encode() +
            b"Storage\n" + uni("0") + uni("cpu") + b"J" + struct.pack("<i", numel) + (b"N" if legacy else b"") +
            b"tQ" + b"J" + struct.pack("<i", offset) + ints(shape) + ints(stride) +
            b"\x89h\x00)Rtq\x03Ru}" + uni("_metadata") + b"h\x00)Rsb.")


def torch_bins():
    """pytorch_model.bin seeds: both serializations of torch_state_dict, F32 and F16."""
    seeds = []
    for dtype, item in (("Float", 4), ("Half", 2)):
        data = bytes(range(6 * item))
        legacy = (b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02M\xe9\x03." +
                  b"\x80\x02}(X\x0d\x00\x00\x00little_endian\x88u." + torch_state_dict(True, dtype) +
                  b"\x80\x02](X\x01\x00\x00\x000e." + struct.pack("<Q", 6) + data)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
            z.writestr("archive/data.pkl", torch_state_dict(False, dtype))
            z.writestr("archive/byteorder", "little")
            z.writestr("archive/version", "3\n")
            z.writestr("archive/data/0", data)
        seeds += [legacy, buf.getvalue()]
    return seeds


def ct2_bin(variables, aliases=(), spec="TransformerSpec", revision=7, version=6):
    """A CTranslate2 model.bin (python/ctranslate2/specs/model_spec.py's _serialize): variables are
    (name, shape, dtype id, bytes)."""
    def string(s):
        b = s.encode()
        return struct.pack("<H", len(b) + 1) + b + b"\0"
    out = struct.pack("<I", version) + string(spec) + struct.pack("<II", revision, len(variables))
    for name, shape, dtype, data in variables:
        out += string(name) + struct.pack("<B", len(shape)) + b"".join(struct.pack("<I", d) for d in shape)
        out += struct.pack("<BI", dtype, len(data)) + data
    out += struct.pack("<I", len(aliases))
    for alias, target in aliases:
        out += string(alias) + string(target)
    return out


def ct2_seeds():
    f32 = lambda *v: struct.pack(f"<{len(v)}f", *v)
    small = [("encoder/num_heads", [], 2, struct.pack("<h", 2)), ("encoder/pre_norm", [], 1, b"\1"),
             ("decoder/embeddings/weight", [2, 2], 1, b"\x7f\x01\x81\x00"),
             ("decoder/embeddings/weight_scale", [2], 0, f32(127.0, 2.0)),
             ("encoder/layer_0/ffn/linear_0/weight", [1, 2], 4, b"\x00\x3c\x00\xc0"),
             ("encoder/layer_0/ffn/linear_0/bias", [1], 5, b"\x80\x3f")]
    return [ct2_bin(small, [("encoder/embeddings_0/weight", "decoder/embeddings/weight")]),
            ct2_bin(small[:2], spec="WhisperSpec", revision=3),
            ct2_bin([(n, s, 0 if t != 1 else 1, d) for n, s, t, d in small[:2]], version=3)]


def fixture_seeds(name, paths):
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
    return [open(os.path.join(fixtures, p), "rb").read() for p in paths]


def listing_seeds():
    """fuzz_listing: byte 0 then listing JSON (translateLocally's, Remote Settings'), byte 1 then a .tar.gz."""
    tl = {"models": [{"shortName": "en-de-tiny", "modelName": "English-German tiny", "srcTags": {"en": "English"},
                      "trgTag": "de", "type": "tiny", "version": 2, "API": 1, "url": "https://h/ende.tar.gz",
                      "checksum": "0" * 64}]}
    rs = {"data": [{"name": "model.ende.intgemm.alphas.bin", "fromLang": "en", "toLang": "de", "version": "1.0",
                    "fileType": "model", "attachment": {"hash": "0" * 64, "size": 3, "filename": "m.bin",
                                                        "location": "main/m.bin", "mimetype": "application/octet-stream"}}]}
    package = io.BytesIO()
    with tarfile.open(fileobj=package, mode="w:gz") as tar:
        for name, data in (("ende/vocab.spm", b"spm"), ("ende/config.yml", b"models: [m.bin]\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    # A damaged gzip stream on which libarchive gives no error text (it once crashed the unpacking).
    no_error_text = base64.b64decode(
        "AR+LCAAF4gtrAv/t0z0OwjAMQOHMnKInCAGsDFwFMfQnoEpNggggcXsME+reoor3LbayZLBeSF1YP3JbN7ZcopmEU17kMyI6ICJtb2RlbC5l"
        "bmRlLmludGdlbW0uYWxwaGFzLmJpbiIsICJmcm9tTGFuZyI6ICJoYXNoHaJt+nRcUXJvbUxhbmciOiAiaGGyvAA8ZvRiACgAAA==")
    return [b"\0" + json.dumps(tl).encode(), b"\0" + json.dumps(rs).encode(), b"\1" + package.getvalue(),
            no_error_text]


def write_seeds(out, target, seeds):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    for i, s in enumerate(seeds):
        open(os.path.join(out, target, f"seed{i}"), "wb").write(s)


def main(out):
    ckpt = os.path.join(out, "fuzz_checkpoint")
    lines = os.path.join(out, "fuzz_line_reader")
    os.makedirs(ckpt, exist_ok=True)
    os.makedirs(lines, exist_ok=True)
    seeds = [tiny_checkpoint(), tiny_checkpoint("f32", "table", False), tiny_checkpoint("f16", "sinusoidal-marian")]
    for i, s in enumerate(seeds):
        open(os.path.join(ckpt, f"seed{i}"), "wb").write(s)
    texts = [b"hello\nworld\n", b"a\r\nb\r\nc", b"\xff\xfe bad \xc0\xaf utf8\n\n", b"nul\0byte\n", b"\xef\xbb\xbfbom\n"]
    for i, t in enumerate(texts):
        open(os.path.join(lines, f"seed{i}"), "wb").write(t)
    write_seeds(out, "fuzz_spm", fixture_seeds("spm", ["spm/en.model", "spm/de.model", "spm/joint.model"]))
    write_seeds(out, "fuzz_vocab", fixture_seeds("vocab", ["opus/model/vocab.json", "opus/marian/vocab.yml"]) +
                [b'{"a": 0, "b": 1}', b'"</s>": 0\n"\\u2581a": 1\n'])
    write_seeds(out, "fuzz_npz", [tiny_npz(zipfile.ZIP_STORED), tiny_npz(zipfile.ZIP_DEFLATED)])
    write_seeds(out, "fuzz_marian_bin",
                [marian_bin([("Wemb", 0x0404, [2, 3], struct.pack("<6f", *range(6))),
                             ("bias", 0x0402, [4], b"\x00\x3c" * 4), ("special:model.yml", 0x0101, [5], b"a: 1\n")]),
                 # an intgemm8 weight: int8 values, then its float multiplier
                 marian_bin([("l1_W", 0x4101, [2, 4], bytes([1, 2, 3, 127, 0x81, 0, 5, 6]) + struct.pack("<f", 12.5))])])
    write_seeds(out, "fuzz_listing", listing_seeds())
    write_seeds(out, "fuzz_yaml", fixture_seeds("yaml", ["opus/marian/decoder.yml"]) +
                [b"models:\n  - model.npz\nvocabs: [a.yml, 'b.yml']\nbeam-size: 4 # four\n",
                 b"---\ntype: transformer\ndec-depth: 6\nnested:\n  key: 1\nflag: true\nx: \"\\u00e9\\n\"\n"])
    write_seeds(out, "fuzz_jsonl", [b'{"text": "A dog runs."}', b'{"text": "a", "prefix": "Ein", "beam_size": 2}',
                                    b'{"text": "x", "beam": 4}', b'[[[{"text": 1}]]]', b'{"text": "\\u00e9\\n"}'])
    write_seeds(out, "fuzz_safetensors", [safetensors({"a": ("F32", [2, 2]), "b": ("F16", [3])}),
                                          safetensors({"w": ("BF16", [1, 4]), "__metadata__": {"format": "pt"}})])
    write_seeds(out, "fuzz_pickle", torch_bins())
    write_seeds(out, "fuzz_ct2", ct2_seeds())
    entry = (b'{"file":"a.txt","size":3,"mtime_ns":1,"crc64":"0123456789abcdef","model":"m","options":"o",'
             b'"output_size":2,"output_crc64":"fedcba9876543210"}\n')
    write_seeds(out, "fuzz_manifest", [b'{"nmt_manifest":2}\n' + entry,
                                       b'{"nmt_manifest":2}\n' + entry.replace(b"a.txt", b"caf%E9.txt") + entry[:40],
                                       b'{"nmt_manifest":1}\n{}\n', b""])
    # A shortlist for 3 source and 10 target pieces (k 2; the target checks the CRC itself).
    u32 = lambda *v: b"".join(x.to_bytes(4, "little") for x in v)
    write_seeds(out, "fuzz_shortlist", [b"NMTSLST1" + u32(3, 10, 2, 2, 0, 7, 0, 2, 2, 3, 1, 4, 9, 0),
                                        b"NMTSLST1" + u32(3, 10, 0, 0, 0, 0, 0, 0, 0)])
    # The first byte of each input decoder seed is the read size - 1.
    write_seeds(out, "fuzz_input_decoder", [b"\x07" + gzip.compress(b"hello\nworld\n"),
                                            b"\x00" + "\ufeffA dog runs.\n".encode("utf-16-le"),
                                            b"\x02" + "\ufeffA cat.\n".encode("utf-32-be"),
                                            b"\x10plain text\r\n", b"\x03\x00\x01\x02binary\x00\x00"])
    write_seeds(out, "fuzz_office", office_seeds())


def office_seeds():
    """fuzz_office's: each package's main member behind the byte that picks its reader (0 DOCX, 1 ODT,
    2 PPTX slide, 3 EPUB chapter, 4 EPUB package document), and whole packages behind 5."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "documents")
    seeds = []
    for selector, package, member in ((0, "report.docx", "word/document.xml"), (1, "letter.odt", "content.xml")):
        data = open(os.path.join(fixtures, package), "rb").read()
        seeds += [bytes([selector]) + zipfile.ZipFile(io.BytesIO(data)).read(member), b"\x05" + data]
    book = zipfile.ZipFile(os.path.join(fixtures, "book.epub"))
    for name in book.namelist():
        if name.endswith(".xhtml"):
            seeds.append(b"\x03" + book.read(name))
        if name.endswith(".opf"):
            seeds.append(b"\x04" + book.read(name))
    slide = ('<p:sld xmlns:a="a" xmlns:p="p"><p:cSld><p:spTree><p:grpSp><p:sp><p:txBody><a:p><a:r><a:rPr '
             'lang="en-US" b="1"/><a:t>A dog</a:t></a:r><a:br/><a:r><a:rPr lang="en-US"><a:hlinkClick r:id="x"/>'
             '</a:rPr><a:t> runs.</a:t></a:r><a:fld type="slidenum"><a:t>1</a:t></a:fld><a:endParaRPr/></a:p>'
             '</p:txBody></p:sp></p:grpSp></p:spTree></p:cSld></p:sld>')
    return seeds + [b"\x02" + slide.encode()]


if __name__ == "__main__":
    main(sys.argv[1])
