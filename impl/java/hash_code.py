"""Java's ``hashCode`` of the keys the models hash the way Java does (``String.hashCode``), in
32-bit two's complement, shared by the Java ``HashMap`` order (:mod:`.java_hash_map`) and
Scala's (:mod:`.spark.scala_hash_map`)."""

from __future__ import annotations

INT_MASK = 0xFFFFFFFF


def signed_int(value: int) -> int:
    """The low 32 bits of ``value`` as a Java ``int``."""
    value &= INT_MASK
    return value - (1 << 32) if value & 0x80000000 else value


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units,
    in 32-bit two's complement."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & INT_MASK
    return signed_int(h)
