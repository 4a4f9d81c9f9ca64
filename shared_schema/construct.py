"""Model instances made from values our own code has already checked, without building the
model's validator (issue 32: the apply path builds no pydantic model a reply does not need).

Building a model's validator is the dearest thing pydantic does -- on the apply of 20 plain edits
it was about a fifth of the whole process, the report's shapes included, built only to be thrown
away when no report was asked for.  :func:`construct` is what ``Model.model_construct(**values)``
does (the fields given, every other field its default, the fields set: the keys given, the private
attributes their defaults), at a fraction of its cost (pydantic inspects each default factory's
signature on every call), and no validator is built until an instance is dumped or validated.
It checks nothing: it is for values of the fields' own types, made by our code (a located edit's
result, its locations, the report around them).  :func:`edit` makes a reply's entry the same way
once the validators the model would run have passed -- the same functions, so the same verdict --
and falls back to validation (its exact error) for anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .rules import plain_entry

M = TypeVar("M", bound=BaseModel)

_IMMUTABLE = (type(None), str, int, float, bool, tuple, frozenset)


class _Plan:
    """One model's fields in order, with their defaults (a value, or a factory to call)."""

    __slots__ = ("fields", "names", "private")

    def __init__(self, cls: type[BaseModel]) -> None:
        fields: list[tuple[str, Any, Callable[[], Any] | None]] = []
        for name, info in cls.__pydantic_fields__.items():
            factory = info.default_factory
            if factory is not None:
                if info.default_factory_takes_validated_data:  # (none of ours: told apart, never guessed)
                    raise TypeError(f"{cls.__name__}.{name}: a default factory that takes data")
                fields.append((name, None, factory))  # type: ignore[arg-type]
            elif info.default is PydanticUndefined:
                fields.append((name, PydanticUndefined, None))  # required: must be given
            else:
                if not isinstance(info.default, _IMMUTABLE):  # pydantic would copy it
                    raise TypeError(f"{cls.__name__}.{name}: a mutable default")
                fields.append((name, info.default, None))
        self.fields = tuple(fields)
        self.names = frozenset(n for n, _, _ in fields)
        private = cls.__private_attributes__
        self.private: dict[str, Any] | None = (
            {name: attr.get_default() for name, attr in private.items()} if private else None
        )


_PLANS: dict[type[BaseModel], _Plan] = {}


def construct(cls: type[M], values: dict[str, Any]) -> M:
    """``cls.model_construct(**values)``: an instance holding ``values`` (already of the fields'
    types; checked by nobody), its other fields their defaults, its validator not built."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    if not plan.names.issuperset(values):
        raise TypeError(f"{cls.__name__} has no field {sorted(set(values) - plan.names)[0]!r}")
    data: dict[str, Any] = {}
    for name, default, factory in plan.fields:
        if name in values:
            data[name] = values[name]
        elif factory is not None:
            data[name] = factory()
        elif default is PydanticUndefined:
            raise TypeError(f"{cls.__name__}: the required field {name!r} is missing")
        else:
            data[name] = default
    made = cls.__new__(cls)
    object.__setattr__(made, "__dict__", data)
    object.__setattr__(made, "__pydantic_fields_set__", set(values))
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None if plan.private is None else dict(plan.private))
    return made


def edit(cls: type[M], values: dict[str, Any]) -> M:
    """A reply's entry as ``cls(**values)`` would make it (``cls``: :class:`~shared_schema.models.Edit`),
    without building its validator when every value is of its plain type and passes the very
    rules its validators apply (:func:`shared_schema.rules.plain_entry`); anything else is
    validated by the model, which raises its own error."""
    if plain_entry(values):
        return construct(cls, values)
    return cls(**values)
