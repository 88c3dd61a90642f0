from workload_map.cli.options import STATUSES
from workload_map.definition.model import ResourceStatus


def test_status_choices_are_the_status_vocabulary() -> None:
    # The CLI spells the statuses out to keep the definition model out of its start-up.
    assert tuple(status.value for status in ResourceStatus) == STATUSES
