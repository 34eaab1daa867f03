/* Optional accelerator of TokenCounter's by-word counting (models/tokens.py).
 *
 * WordTable: a hash table from a word's code points to its token count. ``counts`` walks
 * each text (any PyUnicode kind), splits it on exactly what ``str.split()`` splits on
 * (Py_UNICODE_ISSPACE), skips the characters BertNormalizer deletes (\x0b \x0c \x1c-\x1f
 * \x85: they join their neighbours, as tokens.py deletes them before splitting), hashes
 * each word's code points without making a str, and sums the counts. A text with a word the
 * table does not know stops the walk: its unknown words come back as str (deduplicated,
 * in order of first occurrence) for Python to encode, ``add`` and retry. The pure-Python
 * code in tokens.py is the reference; tests/unit/test_tokens.py checks this against it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { C_WORD = 0, C_SPACE = 1, C_DELETED = 2 };
static unsigned char cls256[256]; /* the class of every code point below 256 */

static inline int
classify(Py_UCS4 c)
{
    if (c < 256)
        return cls256[c];
    return Py_UNICODE_ISSPACE(c) ? C_SPACE : C_WORD;
}

#define H_INIT 0xcbf29ce484222325ULL
#define H_STEP(h, c) (((h) ^ (uint64_t)(c)) * 0x100000001b3ULL)

static inline uint64_t
fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* One slot of the open-addressing table, half a cache line: a look-up that finds its word
 * in its first slot reads one line (keys of up to INLINE bytes are kept in the slot). */
#define INLINE 19
typedef struct {
    uint32_t tag;   /* the hash's high half */
    int32_t count;
    uint32_t len;   /* code points; 0: an empty slot (a word is never empty) */
    uint8_t kind;   /* 1, 2 or 4: the smallest kind holding the word (as str would) */
    char key[INLINE];  /* the key (len * kind <= INLINE), else its offset in the arena */
} Slot;
_Static_assert(sizeof(Slot) == 32, "a slot is half a cache line");

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask;    /* slots - 1 (a power of two) */
    size_t n;
    char *arena;    /* keys longer than INLINE bytes */
    size_t alen, acap;
} WordTable;

static inline int
kind_of_max(Py_UCS4 orv)
{
    return orv < 256 ? 1 : (orv < 65536 ? 2 : 4);
}

static inline const char *
key_of(const WordTable *t, const Slot *s)
{
    if ((size_t)s->len * s->kind <= INLINE)
        return s->key;
    uint64_t off;
    memcpy(&off, s->key, sizeof off);
    return t->arena + off;
}

static inline int
keys_equal(const char *key, int kkind, const void *data, int kind, Py_ssize_t len)
{
    if (kkind == kind)
        return memcmp(key, data, (size_t)len * kind) == 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (PyUnicode_READ(kkind, key, i) != PyUnicode_READ(kind, data, i))
            return 0;
    return 1;
}

/* The slot of the word of ``len`` code points at ``data`` (of ``kind``; ``wkind`` the
 * smallest kind holding them, ``h`` their hash): the word's, or the empty slot where it
 * would go. */
static inline Slot *
find(WordTable *t, uint64_t h, const void *data, int kind, Py_ssize_t len, int wkind)
{
    size_t i = (size_t)h & t->mask;
    uint32_t tag = (uint32_t)(h >> 32);
    for (;;) {
        Slot *s = &t->slots[i];
        if (s->len == 0)
            return s;
        if (s->tag == tag && s->len == len && s->kind == wkind
            && keys_equal(key_of(t, s), wkind, data, kind, len))
            return s;
        i = (i + 1) & t->mask;
    }
}

static uint64_t
hash_key(const char *key, int kind, Py_ssize_t len)
{
    uint64_t h = H_INIT;
    for (Py_ssize_t i = 0; i < len; i++)
        h = H_STEP(h, PyUnicode_READ(kind, key, i));
    return fmix(h);
}

static int
table_init(WordTable *t, size_t slots)
{
    t->slots = PyMem_Calloc(slots, sizeof(Slot));
    t->arena = PyMem_Malloc(4096);
    if (!t->slots || !t->arena) {
        PyMem_Free(t->slots); PyMem_Free(t->arena);
        t->slots = NULL; t->arena = NULL;
        PyErr_NoMemory();
        return -1;
    }
    t->mask = slots - 1;
    t->n = 0;
    t->alen = 0;
    t->acap = 4096;
    return 0;
}

static int
grow(WordTable *t)
{
    size_t slots = (t->mask + 1) * 2;
    Slot *ns = PyMem_Calloc(slots, sizeof(Slot));
    if (!ns) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k <= t->mask; k++) {
        Slot *s = &t->slots[k];
        if (s->len == 0)
            continue;
        uint64_t h = hash_key(key_of(t, s), s->kind, s->len);
        size_t i = (size_t)h & (slots - 1);
        while (ns[i].len)
            i = (i + 1) & (slots - 1);
        ns[i] = *s;
    }
    PyMem_Free(t->slots);
    t->slots = ns;
    t->mask = slots - 1;
    return 0;
}

/* Add a word known not to be in the table. */
static int
insert(WordTable *t, uint64_t h, const void *data, int kind, Py_ssize_t len, int wkind, int32_t count)
{
    if ((size_t)len > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "word too long for WordTable");
        return -1;
    }
    if ((t->n + 1) * 2 > t->mask + 1 && grow(t) < 0)
        return -1;
    Slot *s = find(t, h, data, kind, len, wkind);
    size_t need = (size_t)len * wkind;
    char *key = s->key;
    if (need > INLINE) {
        if (t->alen + need > t->acap) {
            size_t cap = t->acap * 2;
            while (t->alen + need > cap)
                cap *= 2;
            char *na = PyMem_Realloc(t->arena, cap);
            if (!na) {
                PyErr_NoMemory();
                return -1;
            }
            t->arena = na;
            t->acap = cap;
        }
        key = t->arena + t->alen;
        uint64_t off = t->alen;
        memcpy(s->key, &off, sizeof off);
        t->alen += need;
    }
    for (Py_ssize_t k = 0; k < len; k++)
        PyUnicode_WRITE(wkind, key, k, PyUnicode_READ(kind, data, k));
    s->tag = (uint32_t)(h >> 32);
    s->count = count;
    s->len = (uint32_t)len;
    s->kind = (uint8_t)wkind;
    t->n++;
    return 0;
}

/* A word the table does not know (the code points [start, end) of ``text`` without the
 * deleted characters; ``buf``: those code points when ``del``) into the dict ``missing``. */
static int
note_missing(PyObject *missing, PyObject *text, Py_ssize_t start, Py_ssize_t end,
             int del, const Py_UCS4 *buf, Py_ssize_t wlen)
{
    PyObject *w = del ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, wlen)
                      : PyUnicode_Substring(text, start, end);
    if (!w)
        return -1;
    int r = PyDict_SetDefault(missing, w, Py_None) ? 0 : -1;
    Py_DECREF(w);
    return r;
}

/* The code points of text[start:end] that are not deleted characters, into a new buffer. */
static Py_UCS4 *
without_deleted(int kind, const void *data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t wlen)
{
    Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (wlen ? wlen : 1));
    if (!buf) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t j = start; j < end; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (classify(c) != C_DELETED)
            buf[k++] = c;
    }
    return buf;
}

/* Count one text: 0 with *out the count (special tokens included), 1 when a word is unknown
 * (the unknown words are in ``missing``), -1 on error. ``cap`` > 0: stop after the cap-th
 * word when the count so far passes the cap (TokenCounter.count_capped); unknown words among
 * the first ``cap`` stop it there. */
static inline __attribute__((always_inline)) int
scan_kind(WordTable *t, PyObject *text, const int kind, Py_ssize_t cap, long special,
          long *out, PyObject *missing)
{
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    long sum = 0;
    Py_ssize_t words = 0;
    int miss = 0;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if ((kind == PyUnicode_1BYTE_KIND ? cls256[c] : classify(c)) == C_SPACE) {
            i++;
            continue;
        }
        Py_ssize_t start = i, ndel = 0;
        uint64_t h = H_INIT;
        Py_UCS4 orv = 0;
        for (; i < n; i++) {
            c = PyUnicode_READ(kind, data, i);
            int cl = kind == PyUnicode_1BYTE_KIND ? cls256[c] : classify(c);
            if (cl != C_WORD) {
                if (cl == C_SPACE)
                    break;
                ndel++;  /* a deleted character: not part of the word */
                continue;
            }
            h = H_STEP(h, c);
            if (kind != PyUnicode_1BYTE_KIND)
                orv |= c;
        }
        Py_ssize_t wlen = i - start - ndel;
        int del = ndel > 0;
        if (wlen == 0)  /* deleted characters only: no word */
            continue;
        h = fmix(h);
        int wkind = kind_of_max(orv);
        Slot *e;
        int found;  /* read before note_missing: no slot pointer is kept across a call out */
        if (!del) {
            e = find(t, h, (const char *)data + start * kind, kind, wlen, wkind);
            found = e->len != 0;
            if (found)
                sum += e->count;
            else if (note_missing(missing, text, start, i, 0, NULL, wlen) < 0)
                return -1;
        }
        else {
            Py_UCS4 *buf = without_deleted(kind, data, start, i, wlen);
            if (!buf)
                return -1;
            e = find(t, h, buf, PyUnicode_4BYTE_KIND, wlen, wkind);
            found = e->len != 0;
            if (found)
                sum += e->count;
            else if (note_missing(missing, text, start, i, 1, buf, wlen) < 0) {
                PyMem_Free(buf);
                return -1;
            }
            PyMem_Free(buf);
        }
        miss |= !found;
        if (++words == cap) {
            if (miss)
                return 1;
            if (special + sum > cap) {
                *out = special + sum;
                return 0;
            }
        }
    }
    if (miss)
        return 1;
    *out = special + sum;
    return 0;
}

static int
scan(WordTable *t, PyObject *text, Py_ssize_t cap, long special, long *out, PyObject *missing)
{
    if (cap <= 0)
        cap = -1;  /* no cap: the word count never reaches it */
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_kind(t, text, PyUnicode_1BYTE_KIND, cap, special, out, missing);
    case PyUnicode_2BYTE_KIND:
        return scan_kind(t, text, PyUnicode_2BYTE_KIND, cap, special, out, missing);
    default:
        return scan_kind(t, text, PyUnicode_4BYTE_KIND, cap, special, out, missing);
    }
}

static PyObject *
missing_list(PyObject *missing)
{
    return PyDict_Keys(missing);
}

PyDoc_STRVAR(counts_doc,
"counts(texts, special, caps, start) -> (counts, missing)\n\n"
"The counts (``special`` tokens included) of texts[start:], each capped by caps[i] when\n"
"``caps`` is not None (TokenCounter.count_capped). When a text has words the table does not\n"
"know, the counts stop before it and ``missing`` lists its unknown words (deduplicated);\n"
"else ``missing`` is None.");

static PyObject *
wt_counts(WordTable *t, PyObject *args)
{
    PyObject *texts, *caps;
    long special;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "OlOn:counts", &texts, &special, &caps, &start))
        return NULL;
    PyObject *seq = PySequence_Fast(texts, "texts must be a sequence");
    if (!seq)
        return NULL;
    PyObject *capseq = NULL, *out = NULL, *missing = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (caps != Py_None) {
        capseq = PySequence_Fast(caps, "caps must be a sequence or None");
        if (!capseq)
            goto fail;
        if (PySequence_Fast_GET_SIZE(capseq) != n) {
            PyErr_SetString(PyExc_ValueError, "caps and texts differ in length");
            goto fail;
        }
    }
    if (start < 0)
        start = 0;
    out = PyList_New(0);
    missing = PyDict_New();
    if (!out || !missing)
        goto fail;
    for (Py_ssize_t i = start; i < n; i++) {
        PyObject *text = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            goto fail;
        }
        Py_ssize_t cap = 0;
        if (capseq) {
            cap = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(capseq, i));
            if (cap == -1 && PyErr_Occurred())
                goto fail;
        }
        long v = 0;
        int r = scan(t, text, cap, special, &v, missing);
        if (r < 0)
            goto fail;
        if (r == 1) {
            PyObject *ws = missing_list(missing);
            if (!ws)
                goto fail;
            Py_DECREF(seq); Py_XDECREF(capseq); Py_DECREF(missing);
            return Py_BuildValue("(NN)", out, ws);
        }
        PyObject *num = PyLong_FromLong(v);
        if (!num || PyList_Append(out, num) < 0) {
            Py_XDECREF(num);
            goto fail;
        }
        Py_DECREF(num);
    }
    Py_DECREF(seq); Py_XDECREF(capseq); Py_DECREF(missing);
    return Py_BuildValue("(NO)", out, Py_None);
fail:
    Py_DECREF(seq); Py_XDECREF(capseq); Py_XDECREF(out); Py_XDECREF(missing);
    return NULL;
}

PyDoc_STRVAR(missing_doc,
"missing(texts) -> list of the words of ``texts`` the table does not know (deduplicated)");

static PyObject *
wt_missing(WordTable *t, PyObject *texts)
{
    PyObject *seq = PySequence_Fast(texts, "texts must be a sequence");
    if (!seq)
        return NULL;
    PyObject *missing = PyDict_New(), *ws = NULL;
    if (!missing)
        goto done;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *text = PySequence_Fast_GET_ITEM(seq, i);
        long v;
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            goto done;
        }
        if (scan(t, text, 0, 0, &v, missing) < 0)
            goto done;
    }
    ws = missing_list(missing);
done:
    Py_DECREF(seq);
    Py_XDECREF(missing);
    return ws;
}

/* The hash and slot of the str ``w`` (its code points as they are; a str is in its
 * smallest kind); an empty slot when the table does not know it. */
static Slot *
find_str(WordTable *t, PyObject *w, uint64_t *hp)
{
    int kind = PyUnicode_KIND(w);
    const void *data = PyUnicode_DATA(w);
    Py_ssize_t len = PyUnicode_GET_LENGTH(w);
    *hp = hash_key(data, kind, len);
    return find(t, *hp, data, kind, len, kind);
}

PyDoc_STRVAR(add_doc, "add(words, counts): remember each word's count (replacing a known one)");

static PyObject *
wt_add(WordTable *t, PyObject *args)
{
    PyObject *words, *counts;
    if (!PyArg_ParseTuple(args, "OO:add", &words, &counts))
        return NULL;
    PyObject *ws = PySequence_Fast(words, "words must be a sequence");
    if (!ws)
        return NULL;
    PyObject *cs = PySequence_Fast(counts, "counts must be a sequence");
    if (!cs) {
        Py_DECREF(ws);
        return NULL;
    }
    PyObject *result = NULL;
    if (PySequence_Fast_GET_SIZE(ws) != PySequence_Fast_GET_SIZE(cs)) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        goto done;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ws); i++) {
        PyObject *w = PySequence_Fast_GET_ITEM(ws, i);
        if (!PyUnicode_Check(w)) {
            PyErr_Format(PyExc_TypeError, "words[%zd] is not a str", i);
            goto done;
        }
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(cs, i));
        if (c == -1 && PyErr_Occurred())
            goto done;
        if (c < 0 || c > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "count %ld out of range", c);
            goto done;
        }
        uint64_t h;
        Slot *e = find_str(t, w, &h);
        int kind = PyUnicode_KIND(w);
        if (e->len)
            e->count = (int32_t)c;
        else if (PyUnicode_GET_LENGTH(w) == 0)
            continue;  /* never a word of a text */
        else if (insert(t, h, PyUnicode_DATA(w), kind, PyUnicode_GET_LENGTH(w), kind, (int32_t)c) < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(ws);
    Py_DECREF(cs);
    return result;
}

static PyObject *
wt_get(WordTable *t, PyObject *w)
{
    if (!PyUnicode_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "word must be a str");
        return NULL;
    }
    uint64_t h;
    Slot *e = find_str(t, w, &h);
    if (!e->len)
        Py_RETURN_NONE;
    return PyLong_FromLong(e->count);
}

static PyObject *
wt_clear(WordTable *t, PyObject *Py_UNUSED(ignored))
{
    PyMem_Free(t->slots); PyMem_Free(t->arena);
    t->slots = NULL; t->arena = NULL;
    if (table_init(t, 1024) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static Py_ssize_t
wt_len(WordTable *t)
{
    return (Py_ssize_t)t->n;
}

static int
wt_init(WordTable *t, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":WordTable", kwlist))
        return -1;
    PyMem_Free(t->slots); PyMem_Free(t->arena);
    t->slots = NULL; t->arena = NULL;
    return table_init(t, 1024);
}

static void
wt_dealloc(WordTable *t)
{
    PyMem_Free(t->slots); PyMem_Free(t->arena);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyMethodDef wt_methods[] = {
    {"counts", (PyCFunction)wt_counts, METH_VARARGS, counts_doc},
    {"missing", (PyCFunction)wt_missing, METH_O, missing_doc},
    {"add", (PyCFunction)wt_add, METH_VARARGS, add_doc},
    {"get", (PyCFunction)wt_get, METH_O, "get(word) -> its count, or None"},
    {"clear", (PyCFunction)wt_clear, METH_NOARGS, "forget every word"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods wt_as_sequence = {
    .sq_length = (lenfunc)wt_len,
};

static PyTypeObject WordTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "finchunk_pipeline.models._wordcount.WordTable",
    .tp_basicsize = sizeof(WordTable),
    .tp_dealloc = (destructor)wt_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Token counts of words, keyed by their code points (see the module doc).",
    .tp_methods = wt_methods,
    .tp_as_sequence = &wt_as_sequence,
    .tp_init = (initproc)wt_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef wordcount_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_wordcount",
    .m_doc = "Optional accelerator of TokenCounter's by-word counts (see _wordcount.c).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__wordcount(void)
{
    for (Py_UCS4 c = 0; c < 256; c++)
        cls256[c] = Py_UNICODE_ISSPACE(c) ? C_SPACE : C_WORD;
    /* what str.split() splits on but BertNormalizer deletes (tokens.py _DELETED_SPACE) */
    static const Py_UCS4 deleted[] = {0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x1f, 0x85};
    for (size_t k = 0; k < sizeof(deleted) / sizeof(deleted[0]); k++)
        cls256[deleted[k]] = C_DELETED;
    if (PyType_Ready(&WordTableType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&wordcount_module);
    if (!m)
        return NULL;
    Py_INCREF(&WordTableType);
    if (PyModule_AddObject(m, "WordTable", (PyObject *)&WordTableType) < 0) {
        Py_DECREF(&WordTableType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
