from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import workload_map as wm
from workload_map.cli.main import cli

from .conftest import DEFINITIONS, OTHER_MINIJOB, Invoke, objects, pod


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("workload_map.cli.output.now", lambda: datetime(2024, 1, 3, 3, 0, tzinfo=UTC))


def test_table_default_namespace(wmap: Invoke) -> None:
    result = wmap("get")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "STATUS", "COMPONENTS", "PODS", "GPUS", "AGE"]
    assert "   " in lines[0]  # kubectl's three-space gutter
    by_name = {line.split()[0]: line for line in lines[1:]}
    assert set(by_name) == {"broken", "train"}  # not eval (research) nor llm (serving)
    train = by_name["train"].split()
    assert train == ["train", "MiniJob", "Running", "master(1)", "worker(2)", "2/3", "5", "2d3h"]
    assert by_name["broken"].split()[2] == "Failed"


def test_columns_aligned_from_content(wmap: Invoke) -> None:
    lines = wmap("get", "-A").stdout.splitlines()
    # Every column starts at the same offset on every line (widths from content, 3-space gutter).
    header = lines[0]
    for column in ("NAME", "TYPE", "STATUS", "COMPONENTS", "PODS", "GPUS", "AGE"):
        offset = header.index("   " + column) + 3
        for line in lines[1:]:
            assert line[offset - 1] == " " and line[offset] != " ", (column, line)
    assert header.startswith("NAMESPACE   NAME")
    assert not any(line.endswith(" ") for line in lines)


def test_all_namespaces(wmap: Invoke) -> None:
    result = wmap("get", "-A")
    assert result.exit_code == 0
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0][:2] == ["NAMESPACE", "NAME"]
    assert {(r[0], r[1]) for r in rows[1:]} == {
        ("default", "broken"),
        ("default", "train"),
        ("research", "eval"),
        ("serving", "llm"),
    }


def test_namespace_flag(wmap: Invoke) -> None:
    result = wmap("get", "-n", "serving")
    rows = [line.split() for line in result.stdout.splitlines()]
    assert [r[0] for r in rows[1:]] == ["llm"]
    assert rows[1][3:5] == ["leader(2)", "worker(2)"]
    assert "NAMESPACE" not in rows[0]


def test_wide(wmap: Invoke) -> None:
    result = wmap("get", "minijob/train", "-o", "wide")
    header, row = result.stdout.splitlines()
    assert header.split()[-8:] == ["GPUS", "AGE", "GPUS-IN-USE", "PENDING", "FAILED", "NODES", "DEFINITION", "QUEUE"]
    # GPUS is GPUs desired (3 pods); GPUS-IN-USE what the pods bound to a node hold: the Pending one holds none
    cells = row.split()
    assert (cells[-8], cells[-6]) == ("5", "3")
    assert cells[-5:] == ["1", "0", "1", "test-wmap-io-minijob-v1", "<none>"]


def test_json_list_and_single(wmap: Invoke) -> None:
    listing = json.loads(wmap("get", "-A", "-o", "json").stdout)
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    assert sorted(i["workload"]["name"] for i in listing["items"]) == ["broken", "eval", "llm", "train"]
    single = json.loads(wmap("get", "minijob", "train", "-o", "json").stdout)
    assert single["kind"] == "WorkloadTree"
    assert single["workload"]["name"] == "train"
    assert single["status"]["primary"] == "Running"


def test_yaml(wmap: Invoke) -> None:
    single = yaml.safe_load(wmap("get", "minijob/train", "-o", "yaml").stdout)
    assert single["workload"]["kind"] == "MiniJob"
    listing = yaml.safe_load(wmap("get", "-o", "yaml").stdout)
    assert listing["kind"] == "List" and len(listing["items"]) == 2


def test_name_output(wmap: Invoke) -> None:
    result = wmap("get", "-A", "-o", "name")
    assert result.stdout.splitlines() == [
        "minijob.test.wmap.io/broken",
        "minijob.test.wmap.io/train",
        "minijob.test.wmap.io/eval",
        "group.test.wmap.io/llm",
    ]


def test_empty_result(wmap: Invoke) -> None:
    result = wmap("get", "-n", "nowhere")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.strip() == "No resources found in nowhere namespace."
    result = wmap("get", "-A", "--status", "Suspended")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.strip() == "No resources found."


def test_label_selector(wmap: Invoke) -> None:
    def names(selector: str) -> list[str]:
        result = wmap("get", "-A", "-o", "name", "-l", selector)
        assert result.exit_code == 0, result.output
        return [line.split("/")[1] for line in result.stdout.splitlines()]

    assert names("team=nlp") == ["train", "eval"]
    assert names("team==nlp,tier=gold") == ["train"]
    assert names("team!=nlp") == ["broken", "llm"]
    assert names("team in (vision, nlp)") == ["broken", "train", "eval"]
    assert names("team notin (nlp)") == ["broken", "llm"]
    assert names("tier") == ["train"]
    assert names("!team") == ["llm"]


def test_bad_selector_is_usage_error(wmap: Invoke) -> None:
    result = wmap("get", "-l", "team in (a")
    assert result.exit_code == 2
    assert "unable to parse selector" in result.stderr


def test_status_filter_case_insensitive(wmap: Invoke) -> None:
    result = wmap("get", "-A", "--status", "failed", "-o", "name")
    assert result.stdout.splitlines() == ["minijob.test.wmap.io/broken"]


@pytest.mark.parametrize(
    "spelling",
    ["MiniJob", "minijob", "minijobs", "minijob.test.wmap.io", "minijobs.test.wmap.io", "minijob.v1.test.wmap.io"],
)
def test_type_spellings(wmap: Invoke, spelling: str) -> None:
    result = wmap("get", spelling, "-o", "name")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["minijob.test.wmap.io/broken", "minijob.test.wmap.io/train"]


def test_type_name_forms(wmap: Invoke) -> None:
    slash = wmap("get", "minijobs/train", "-o", "name").stdout
    space = wmap("get", "minijobs", "train", "-o", "name").stdout
    assert slash == space == "minijob.test.wmap.io/train\n"


def test_type_lists_non_top_level_kinds(wmap: Invoke) -> None:
    # Every workload of the named kind is listed, whatever owns it.
    result = wmap("get", "group", "-A")
    assert [line.split()[1] for line in result.stdout.splitlines()[1:]] == ["llm"]


def test_not_found_exit_3(wmap: Invoke) -> None:
    result = wmap("get", "minijob/nope")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert 'error: minijob.test.wmap.io "nope" not found in namespace "default"' in result.stderr


def test_unknown_type_exit_4(wmap: Invoke) -> None:
    result = wmap("get", "frobnicators")
    assert result.exit_code == 4
    assert result.stderr.startswith('error: no definition covers type "frobnicators"')
    assert "did you mean" not in result.stderr  # nothing close


def test_a_misspelt_type_names_the_closest_covered_ones(wmap: Invoke) -> None:
    result = wmap("get", "minijbo/nope")
    assert result.exit_code == 4
    assert "hint: did you mean minijob? list the covered types with: wmap definitions" in result.stderr


def test_ambiguous_type(wmap: Invoke, tmp_path: pytest.TempPathFactory) -> None:
    other = Path(str(tmp_path)) / "other.yaml"
    other.write_text(OTHER_MINIJOB)
    result = wmap("get", "minijob", "--definitions", str(other))
    assert result.exit_code == 1
    assert 'error: type "minijob" is ambiguous' in result.stderr
    assert "MiniJob.other.wmap.io" in result.stderr and "MiniJob.test.wmap.io" in result.stderr
    resolved = wmap("get", "minijob.test.wmap.io", "-o", "name", "--definitions", str(other))
    assert resolved.exit_code == 0


def test_warnings_after_output(wmap: Invoke, tmp_path: pytest.TempPathFactory) -> None:
    orphan = Path(str(tmp_path)) / "orphan.yaml"
    orphan.write_text(yaml.safe_dump(pod("lost-0", "default", ("MiniJob", "gone", "u-gone"), {})))
    result = wmap("get", "--from-file", str(orphan))
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert any("MiniJob/gone" in w and "not in the input" in w for w in warnings)
    assert "Warning" not in result.stdout


def test_karta_in_dump_is_a_definition(tmp_path: pytest.TempPathFactory, dump_file: object) -> None:

    base = Path(str(tmp_path))
    mixed = base / "mixed.yaml"
    mixed.write_text(DEFINITIONS + "---\n" + yaml.safe_dump_all(objects()))
    result = CliRunner().invoke(cli, ["get", "-A", "-o", "json", "--from-file", str(mixed)])
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)["items"]
    assert {i["definition"]["origin"] for i in items} == {"cluster"}


def test_a_table_fits_the_terminal_as_kubectl_s_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a terminal narrower than the table COMPONENTS gives way, then long names are cut with an ellipsis;
    -o wide and a pipe print every column whole."""

    example = str(Path(wm.__file__).parent / "examples" / "ai-cluster.yaml")
    whole = CliRunner().invoke(cli, ["get", "-A", "--from-file", example]).stdout
    assert "COMPONENTS" in whole and max(len(line) for line in whole.splitlines()) > 100
    monkeypatch.setattr("workload_map.cli.output.terminal_width", lambda: 100)
    fitted = CliRunner().invoke(cli, ["get", "-A", "--from-file", example]).stdout
    assert "COMPONENTS" not in fitted and max(len(line) for line in fitted.splitlines()) <= 100
    monkeypatch.setattr("workload_map.cli.output.terminal_width", lambda: 90)
    narrow = CliRunner().invoke(cli, ["get", "-A", "--from-file", example]).stdout
    assert max(len(line) for line in narrow.splitlines()) <= 90 and "…" in narrow
    assert [line.split()[0] for line in narrow.splitlines()[1:]] == [line.split()[0] for line in whole.splitlines()[1:]]
    wide = CliRunner().invoke(cli, ["get", "-A", "-o", "wide", "--from-file", example]).stdout
    assert "COMPONENTS" in wide and "DEFINITION" in wide and "…" not in wide
    # rows by name within a namespace, whatever their kind
    names = [line.split()[:2] for line in whole.splitlines()[1:]]
    assert names == sorted(names)
