"""workload_map.base.model.Model: what the records built on it rely on from @dataclass."""

from __future__ import annotations

import pickle

import pytest

from workload_map.base.model import Model, field


class Frozen(Model):
    name: str
    tags: list[str] = field(default_factory=list)
    count: int = 0


class Mutable(Model, frozen=False, kw_only=False):
    name: str
    count: int = 0
    notes: list[str] = field(default_factory=list)


def test_keyword_only_by_default_with_defaults_made_per_object() -> None:
    a, b = Frozen(name="a"), Frozen(name="a")
    assert a == b and a.tags == [] and a.tags is not b.tags
    assert hash(Frozen(name="a", tags=None)) == hash(Frozen(name="a", tags=None))  # type: ignore[arg-type]
    assert repr(a) == "Frozen(name='a', tags=[], count=0)"
    assert a.replace(count=2) == Frozen(name="a", count=2)
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        Frozen("a")  # type: ignore[call-arg]
    with pytest.raises(AttributeError, match="frozen"):
        a.count = 1  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a


def test_missing_and_unknown_fields_are_named() -> None:
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'name'"):
        Frozen()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        Frozen(name="a", nmae="b")  # type: ignore[call-arg]


def test_mutable_takes_fields_by_position_and_is_unhashable() -> None:
    m = Mutable("m", 2)
    assert m == Mutable(name="m", count=2) and m != Frozen(name="m")
    m.count = 3
    m.notes.append("x")
    assert m == Mutable("m", 3, ["x"])
    with pytest.raises(TypeError, match="unhashable"):
        hash(m)
    with pytest.raises(TypeError, match="multiple values"):
        Mutable("m", name="n")  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes from 2 to 4 positional"):
        Mutable("m", 1, [], 4)  # type: ignore[call-arg]
