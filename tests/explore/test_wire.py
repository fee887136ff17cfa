"""The channel encoding between workers (:mod:`yarnspec.checks.explore.wire`) and what the
partitions send on it: each record once per channel, each key once per sender."""

from __future__ import annotations

import dataclasses
import enum
import pickle
from typing import Any, NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import wire
from yarnspec.checks.explore.backends import InlineBackend
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.checks.explore.partition import ReceivedStates, SearchOptions, SearchPartition
from yarnspec.checks.explore.wire import ChannelDecoder, ChannelEncoder

SCENARIO = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "async-double-commit/pre-8127"})


class Colour(enum.IntEnum):
    RED = 1
    BLUE = 2


class Shade(enum.Enum):
    """With the same values as :class:`Colour` (records are told apart by class)."""

    LIGHT = 1
    DARK = 2


@dataclasses.dataclass(frozen=True)
class Leaf:
    value: int
    colour: Colour


@dataclasses.dataclass(frozen=True, slots=True)
class Node:
    left: Any
    right: Any
    cache: int = dataclasses.field(default=-1, compare=False)


class Pair(NamedTuple):
    """A named tuple record (as the scheduler's state records are); equal to a plain tuple of
    the same items, but sent and read back as a ``Pair``."""

    left: Any
    right: Any


def _trees() -> st.SearchStrategy[Any]:
    # no int equal to a Colour member: equal values of different types are not told apart
    leaves = st.builds(Leaf, st.integers(0, 3), st.sampled_from(Colour)) | st.sampled_from(Shade) | st.integers(5, 8)
    return st.recursive(
        leaves,
        lambda inner: st.builds(Node, inner, inner) | st.builds(Pair, inner, inner) | st.tuples(inner, inner),
        max_leaves=8,
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_trees(), max_size=6), max_size=6), st.integers(0, 6), st.integers(0, 8))
def test_messages_decode_to_equal_values_of_the_same_classes(
    messages: list[list[Any]], limit: int, plain_after: int
) -> None:
    """Every message reads back equal, with each record of its own class, also when the
    tables are started afresh (a small limit) between messages, and when classes are sent
    plain after a few look-ups."""
    before = wire.CHANNEL_LIMIT, wire.PLAIN_AFTER
    wire.CHANNEL_LIMIT, wire.PLAIN_AFTER = limit, plain_after
    try:
        encoder, decoder = ChannelEncoder(), ChannelDecoder()
        for message in messages:
            copy = decoder.decode(encoder.encode(message))
            assert copy == message
            assert _classes(copy) == _classes(message)
    finally:
        wire.CHANNEL_LIMIT, wire.PLAIN_AFTER = before


def test_a_class_whose_records_never_repeat_is_sent_plain_and_the_others_still_by_number() -> None:
    encoder, decoder = ChannelEncoder(), ChannelDecoder()
    shared = Leaf(1, Colour.RED)
    pairs = [Pair(i, shared) for i in range(wire.PLAIN_AFTER + 10)]  # every Pair new, one Leaf
    copy = decoder.decode(encoder.encode(pairs))
    assert copy == pairs and all(type(p) is Pair for p in copy)
    assert all(p.right is copy[0].right for p in copy)  # the Leaf crossed once
    layouts = {layout.kind: layout for layout in encoder.kinds.values() if layout is not None}
    assert layouts[Pair].plain and not layouts[Pair].table  # nothing kept for them
    assert not layouts[Leaf].plain
    nodes = [Node(shared, i) for i in range(wire.PLAIN_AFTER + 10)]  # a dataclass with a cache
    copied = decoder.decode(encoder.encode(nodes))
    assert copied == nodes and layouts[Leaf].plain is False and encoder.kinds[Node].plain  # type: ignore[union-attr]
    assert all(node.cache == -1 and node.left is copy[0].right for node in copied)


def _classes(value: Any) -> list[type]:
    """The classes in ``value``, depth first."""
    found = [type(value)]
    if isinstance(value, tuple | list):
        for item in value:
            found += _classes(item)
    elif dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            found += _classes(getattr(value, field.name))
    return found


def test_a_record_crosses_a_channel_once_and_is_shared_after() -> None:
    model = SCENARIO.build()
    (state,) = model.initial_states()
    targets = [target for _, target in model.successors(state)]
    encoder, decoder = ChannelEncoder(), ChannelDecoder()
    first = encoder.encode(targets)
    again = encoder.encode(targets)
    assert len(again) < len(first) / 5  # numbers only
    assert len(first) < len(pickle.dumps(targets)) + len(pickle.dumps(targets))
    one, two = decoder.decode(first), decoder.decode(again)
    assert one == two == targets
    assert all(a is b for a, b in zip(one, two))  # the same records, not copies
    assert all(hash(a) == hash(b) for a, b in zip(one, targets))


def test_a_named_tuple_record_is_interned_as_a_dataclass_is() -> None:
    encoder, decoder = ChannelEncoder(), ChannelDecoder()
    (first,) = decoder.decode(encoder.encode([Pair(1, Leaf(2, Colour.RED))]))
    (again,) = decoder.decode(encoder.encode([Pair(1, Leaf(2, Colour.RED))]))
    assert type(first) is Pair and first == Pair(1, Leaf(2, Colour.RED))
    assert again is first  # sent once, then by number


def test_messages_must_be_read_in_order() -> None:
    encoder = ChannelEncoder()
    encoder.encode([Leaf(1, Colour.RED)])
    later = encoder.encode([Leaf(1, Colour.RED)])
    try:
        ChannelDecoder().decode(later)
    except KeyError:
        return
    raise AssertionError("a reference to a record never received was read")


class _Counting(InlineBackend):
    """Inline partitions that count the keys each sender sends each owner over the run."""

    def __init__(self, count: int, source: ModelSource, options: SearchOptions) -> None:
        super().__init__(count, source, options)
        self.sent: dict[tuple[int, int], list[Any]] = {}
        for partition in self.partitions:
            partition.outbox = self._recording(partition)  # type: ignore[method-assign]

    def _recording(self, partition: SearchPartition) -> Any:
        plain = partition.outbox
        decoders = {owner: ChannelDecoder() for owner in range(self.count)}

        def outbox(owner: int) -> bytes:
            data = plain(owner)
            if data:
                self.sent.setdefault((partition.index, owner), []).extend(
                    key for key, _ in decoders[owner].decode(data)
                )
            return data

        return outbox


def test_each_sender_sends_each_key_to_its_owner_at_most_once() -> None:
    pools: list[_Counting] = []

    def backend(count: int, source: ModelSource, options: SearchOptions) -> _Counting:
        pools.append(_Counting(count, source, options))
        return pools[-1]

    result = explore_partitioned(SCENARIO, workers=2, backend=backend, max_depth=8, symmetry=True, show_progress=False)
    sent = pools[0].sent
    assert sent and all(len(keys) == len(set(keys)) for keys in sent.values())
    assert sum(len(keys) for keys in sent.values()) <= result.stats.distinct_states


def test_with_symmetry_only_the_states_a_peer_found_first_and_new_cross() -> None:
    """An outbox carries keys and tags; a state crosses only when its owner asks for it, for
    a key that is new and that this sender found first."""
    asked: list[int] = []
    taken: list[int] = []

    class Watching(InlineBackend):
        def __init__(self, count: int, source: ModelSource, options: SearchOptions) -> None:
            super().__init__(count, source, options)
            for partition in self.partitions:
                plain = partition.reply

                def reply(owner: int, request: bytes, plain: Any = plain) -> bytes:
                    asked.append(len(pickle.loads(request)))
                    return plain(owner, request)

                partition.reply = reply  # type: ignore[method-assign]

        def exchange(self) -> list[ReceivedStates]:
            answers = super().exchange()
            taken.extend(sum(1 for _, _, record in p._new if record[2] != p.index) for p in self.partitions)
            return answers

    result = explore_partitioned(SCENARIO, workers=2, backend=Watching, max_depth=8, symmetry=True, show_progress=False)
    assert result.stats.distinct_states > 50
    assert sum(asked) == sum(taken) > 0
