"""text8 loader (zip, cache, download served from memory) and the corpus / vocabulary tools."""

import collections
import gzip
import hashlib
import io
import os
import urllib.error
import zipfile

import numpy as np
import pytest

from kerasish.datasets import CorruptFileError, DatasetNotFoundError, _files, text, text8

CORPUS = "anarchism originated as a term of abuse first used against early working class radicals"


def make_zip(path, content=CORPUS, member="text8"):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, content)
    return str(path)


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.delenv(_files.ENV_VAR, raising=False)
    monkeypatch.delenv(_files.OFFLINE_ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def no_network(url, timeout=None):
        raise urllib.error.URLError("network disabled in tests")

    monkeypatch.setattr(_files, "urlopen", no_network)
    return tmp_path


def test_text8_from_a_zip_a_plain_file_and_a_directory(isolated):
    archive = make_zip(isolated / "text8.zip")
    assert text8.load_data(path=archive) == CORPUS.split()
    plain = isolated / "plain"
    plain.mkdir()
    (plain / "text8").write_text(CORPUS)
    assert text8.load_data(path=plain) == CORPUS.split()
    assert text8.load_data(path=plain / "text8") == CORPUS.split()
    (isolated / "empty").mkdir()
    with pytest.raises(DatasetNotFoundError, match="neither"):
        text8.load_data(path=isolated / "empty")


def test_text8_from_the_environment_and_home_caches(isolated, monkeypatch):
    root = isolated / "data"
    (root / "text8").mkdir(parents=True)
    cached = make_zip(root / "text8" / "text8.zip", "one two three")
    monkeypatch.setattr(text8, "ZIP_SIZE", os.path.getsize(cached))  # as if published
    monkeypatch.setenv(_files.ENV_VAR, str(root))
    assert text8.load_data() == ["one", "two", "three"]
    monkeypatch.delenv(_files.ENV_VAR)
    home = isolated / "home" / ".kerasish" / "datasets" / "text8"
    home.mkdir(parents=True)
    (home / "text8").write_text("four five")
    assert text8.load_data() == ["four", "five"]


def test_text8_download_checks_the_size_and_caches(isolated, monkeypatch):
    buffer = io.BytesIO()
    make_zip(buffer, "downloaded corpus words")
    payload = buffer.getvalue()
    calls = []

    class Response(io.BytesIO):
        headers = {}

    def urlopen(url, timeout=None):
        calls.append(url)
        assert url == text8.URL
        return Response(payload)

    monkeypatch.setattr(_files, "urlopen", urlopen)
    monkeypatch.setattr(text8, "ZIP_SIZE", len(payload) + 1)
    with pytest.raises(
        DatasetNotFoundError, match=f"received {len(payload)} bytes, expected {len(payload) + 1}"
    ):
        text8.load_data()
    monkeypatch.setattr(text8, "ZIP_SIZE", len(payload))
    monkeypatch.setattr(text8, "ZIP_SHA256", "0" * 64)
    with pytest.raises(DatasetNotFoundError, match="SHA-256 mismatch"):
        text8.load_data()
    monkeypatch.setattr(text8, "ZIP_SHA256", hashlib.sha256(payload).hexdigest())
    assert text8.load_data() == ["downloaded", "corpus", "words"]
    assert os.path.isfile(isolated / "home" / ".kerasish" / "datasets" / "text8" / "text8.zip")
    assert text8.load_data() == ["downloaded", "corpus", "words"]
    assert len(calls) == 3  # the last load came from the cache


def test_a_cached_zip_of_another_size_is_downloaded_again_or_named(isolated, monkeypatch):
    buffer = io.BytesIO()
    make_zip(buffer, "published corpus words")
    payload = buffer.getvalue()
    monkeypatch.setattr(text8, "ZIP_SIZE", len(payload))
    monkeypatch.setattr(text8, "ZIP_SHA256", hashlib.sha256(payload).hexdigest())
    home = isolated / "home" / ".kerasish" / "datasets" / "text8"
    home.mkdir(parents=True)
    cached = make_zip(home / "text8.zip", "tampered words")
    pattern = (r"text8\.zip: a cached file that is not the published one \(it holds "
               rf"{os.path.getsize(cached):,} bytes, the published file {len(payload):,}\), and "
               r"it was not downloaded again \(the download failed: .*network disabled in "
               r"tests.*\)\. Delete it so that it is downloaded again, or pass path=")
    with pytest.raises(CorruptFileError, match=pattern):
        text8.load_data()

    class Response(io.BytesIO):
        headers = {}

    monkeypatch.setattr(_files, "urlopen", lambda url, timeout=None: Response(payload))
    assert text8.load_data() == ["published", "corpus", "words"]
    assert (home / "text8.zip").read_bytes() == payload


def test_text8_offline_message(isolated):
    with pytest.raises(DatasetNotFoundError) as info:
        text8.load_data()
    message = str(info.value)
    for expected in (
        "path argument: not given",
        "~/.kerasish/datasets/text8",
        "mattmahoney.net/dc/text8.zip",
        "network disabled",
        "--corpus",
    ):
        assert expected in message, expected


def test_damaged_archives_are_named(isolated):
    archive = make_zip(isolated / "text8.zip", CORPUS * 50)
    data = bytearray(open(archive, "rb").read())
    data[60] ^= 0xFF  # inside the compressed member
    open(archive, "wb").write(bytes(data))
    with pytest.raises(CorruptFileError, match="text8.zip"):
        text8.load_data(path=archive)
    gz = isolated / "corpus.gz"
    gz.write_bytes(gzip.compress(b"some words here")[:-6])
    with pytest.raises(CorruptFileError, match="corpus.gz"):
        text.load_corpus(gz)


def test_load_corpus_plain_gz_lowercase_and_pattern(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("The Cat sat.\nThe  dog, too!\n")
    assert text.load_corpus(path) == ["The", "Cat", "sat.", "The", "dog,", "too!"]
    assert text.load_corpus(path, lowercase=True)[:2] == ["the", "cat"]
    assert text.load_corpus(path, lowercase=True, pattern=r"[a-z]+") == [
        "the",
        "cat",
        "sat",
        "the",
        "dog",
        "too",
    ]
    gz = tmp_path / "book.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert text.load_corpus(gz) == text.load_corpus(path)


def seeds_vocabulary(words, n_words):
    """The seeds' word2vec build_vocab / convert_words_to_index, for reference."""
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = {word: i for i, (word, _) in enumerate(count)}
    ids = [dictionary.get(word, 0) for word in words]
    return dictionary, ids


def test_build_vocabulary_matches_the_seeds_and_counts_unknowns():
    rng = np.random.default_rng(0)
    words = [f"w{k}" for k in rng.zipf(1.5, 5000) % 300]
    word_to_id, id_to_word, counts = text.build_vocabulary(words, max_size=50)
    expected, expected_ids = seeds_vocabulary(words, 50)
    assert word_to_id == expected
    assert id_to_word[0] == "UNK" and len(id_to_word) == 50
    assert [word_to_id[w] for w in id_to_word] == list(range(50))
    ids = text.tokens_to_ids(words, word_to_id)
    assert ids.dtype == np.int32 and ids.tolist() == expected_ids
    assert counts[0] == int(np.sum(ids == 0)) and counts.sum() == len(words)
    assert counts.dtype == np.int64 and all(np.diff(counts[1:]) <= 0)


def test_build_vocabulary_ties_min_count_unlimited_and_literal_unk():
    tokens = "b a c a b d UNK e".split()
    word_to_id, id_to_word, counts = text.build_vocabulary(tokens, max_size=None)
    assert id_to_word == ["UNK", "b", "a", "c", "d", "e"]  # ties keep first occurrence
    assert counts.tolist() == [1, 2, 2, 1, 1, 1]
    _, id_to_word, counts = text.build_vocabulary(tokens, min_count=2)
    assert id_to_word == ["UNK", "b", "a"] and counts.tolist() == [4, 2, 2]
    with pytest.raises(ValueError, match="max_size"):
        text.build_vocabulary(tokens, max_size=0)


def test_encode_equals_build_vocabulary_then_tokens_to_ids():
    rng = np.random.default_rng(1)
    words = [f"w{k}" for k in rng.zipf(1.3, 20000) % 1000] + ["UNK"] * 3
    for max_size, min_count in ((100, 1), (None, 3), (5000, 1), (1, 1)):
        ids, word_to_id, id_to_word, counts = text.encode(words, max_size, min_count)
        w2i, i2w, c = text.build_vocabulary(words, max_size, min_count)
        assert id_to_word == i2w and word_to_id == w2i
        np.testing.assert_array_equal(counts, c)
        np.testing.assert_array_equal(ids, text.tokens_to_ids(words, w2i))
    assert text8.encode is text.encode and text8.load_corpus is text.load_corpus
