from __future__ import annotations

from decimal import Decimal

import pytest
from kubernetes.utils.quantity import parse_quantity as reference

from workload_map.resolve.quantity import QuantityError, format_quantity, parse_quantity

QUANTITIES = [
    "0",
    "1",
    "2",
    "10",
    "0.5",
    ".5",
    "5.",
    "1.25",
    "+3",
    "-1",
    "100m",
    "1500m",
    "1n",
    "250u",
    "3k",
    "2M",
    "7G",
    "1T",
    "1P",
    "1E",
    "1Ki",
    "512Mi",
    "16Gi",
    "1.5Gi",
    "2Ti",
    "1Pi",
    "1Ei",
    "1e3",
    "1E3",
    "1e-3",
    "2.5e2",
    "12e+1",
    "0.1Ki",
    8,
    0.25,
    1024,
]


@pytest.mark.parametrize("value", QUANTITIES)
def test_matches_the_kubernetes_client(value: object) -> None:
    assert parse_quantity(value) == reference(value)


@pytest.mark.parametrize("value", ["", "abc", "1x", "1.2.3", "Gi", "--1", True, None, [1]])
def test_rejects_what_kubernetes_rejects(value: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)
    if isinstance(value, str) and value:
        with pytest.raises(ValueError):
            reference(value)


def test_inner_spaces_are_rejected_as_the_api_server_does() -> None:
    # The Python client tolerates "1 Gi"; resource.Quantity in the API server does not.
    with pytest.raises(QuantityError):
        parse_quantity("1 Gi")


def test_formats_for_people() -> None:
    assert format_quantity(Decimal("0.5"), "cpu") == "500m"
    assert format_quantity(Decimal(4), "cpu") == "4"
    assert format_quantity(parse_quantity("16Gi"), "memory") == "16Gi"
    assert format_quantity(parse_quantity("1536Mi"), "memory") == "1536Mi"
    assert format_quantity(Decimal(8), "nvidia.com/gpu") == "8"
