"""Status values a controller writes into a free string field (``--api-source``, after gosource.py).

Many operators declare their phase as a plain ``string`` and keep the values as constants in the controller's
package (``StatusInitialized = "Initialized"``), or write string literals, through a helper that takes the
value as a parameter (``c.updateStatus(ctx, obj, StatusProvisioning, 0)`` ending in
``copy.Status.CurrentState = state``). The API types then say nothing; the controller's assignments do. This
reads them as text: every ``Status.<Field> = <expression>`` in the repository's Go files, the expression
followed when it is a parameter of the function it sits in (to the calls of that function, three deep), and
resolved to string constants (of the same package or an imported one) and literals.

Where a value is written says what no word may: a value written on a failure path (inside ``if err != nil``,
or followed in its block by a warning event or an error log) is the object failing, one written in a block
that runs when a ready count reaches the desired one (``if ready == desired {``) the object running (low
confidence, with the site as evidence). Hand-written for the reason gosource.py gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_HOPS = 3
MAX_VALUES = 60
_FUNC = re.compile(r"^func\s*(?:\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\])?\(([^)]*)\)", re.M)
_DECLARATION = re.compile(r"^\s*func\s*(?:\([^)]*\)\s*)?$")
_LITERAL = re.compile(r'^"(?:\\.|[^"\\])*"$|^`[^`]*`$')
_NAME = re.compile(r"^(?:(\w+)\.)?([A-Za-z_]\w*)$")
_CONVERSION = re.compile(r"^(?:\w+\.)?\w+\((.*)\)$", re.S)
_FAILURE_AFTER = re.compile(r"EventTypeWarning|\"Warning\"|\b(?:klog|log|logger|Log)\.Error|\.Error\(|Errorf\(")
_ALL_READY = re.compile(
    r"(?i)\b\w*(ready|available)\w*\s*(==|>=)\s*\*?[\w.]+|\b\w*(replicas|desired|size)\w*\s*(==|<=)\s*\w*(ready|available)"
)
# A pod's own phase copied over (``cr.Status.Phase = string(pod.Status.Phase)``, ``pods[0].Status.Phase``).
_POD_PHASE_COPY = re.compile(r"^(?:[\w.]+\()?\w*[Pp]od\w*(?:\[[^\]]*\])?\.Status\.Phase\)?$")
# The phases of a pod (k8s.io/api/core/v1 PodPhase).
POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
# The parts of a string concatenation: literals, and whatever lies between the ``+``.
_CONCATENATED = re.compile(r'"(?:\\.|[^"\\])*"|`[^`]*`|[^+"`]+|\+')
_CALL = re.compile(r"^((?:\w+\.)*\w+)\(.*\)$", re.S)
_RETURN = re.compile(r"\breturn\s+([^\n,;]+)")
_ERR_CHECK = re.compile(r"\berr\s*!=\s*nil")
_ASSIGNS_ERR = re.compile(r"\berr\s*:?=(?!=)")


@dataclass
class Written:
    value: str
    evidence: str  # ``written at pkg/controller/x.go:12 (StatusReady)``
    failure: bool  # written on a failure path (at any of its sites)
    all_ready: bool = False  # written where the ready count has reached the desired one (at its first site)
    constant: str | None = None  # the constant's name (``StatusFailedAlreadyExists``): its words say more


# (qualifier or None, name, file path) -> the constant's string value, or None.
ConstantLookup = Callable[[str | None, str, Path], str | None]


def written_values(  # noqa: PLR0917 - the reader's inputs, each by name at its one call
    files: list[Path],
    root: Path,
    text: Callable[[Path], str | None],
    field_name: str,
    constant: ConstantLookup,
    holder: str | None = None,
) -> list[Written]:
    """The values the Go ``files`` (under ``root``) write into ``Status.<field_name>``, first site first: also
    through a variable holding the status (``st := obj.Status.DeepCopy()``, ``dfStatus := r.statusOf(obj)``),
    named after it (``status``, ``newStatus``), and keyed in a literal of the struct ``holder`` that declares
    the field (``v1.WidgetStatus{Phase: PhaseReady}``)."""
    assign = re.compile(rf"\b(?:Status|\w*[Ss]tatus)\.{re.escape(field_name)}\s*=(?!=)\s*([^\n;]+)")
    found: dict[str, Written] = {}
    reader = _Sites(files, root, text, constant)
    for path in files:
        body = text(path) or ""
        sites = [(m.group(1), m.start(1)) for m in assign.finditer(body)] if f"tatus.{field_name}" in body else []
        if holder is not None and f"{holder}{{" in body:
            sites += _keyed_in_literals(body, holder, field_name)
        for expression_text, at in sites:
            expression = _strip_comment(expression_text)
            for written in reader.values(expression, path, at, 0, set()):
                first = found.setdefault(written.value, written)
                if written.failure and not first.failure:
                    first.failure, first.evidence = True, f"{first.evidence}, {written.evidence} on a failure path"
                if len(found) >= MAX_VALUES:
                    return list(found.values())
    return list(found.values())


def _keyed_in_literals(body: str, holder: str, field_name: str) -> list[tuple[str, int]]:
    """The values keyed ``<field_name>:`` in the literals of the struct ``holder`` in a Go file (a status built
    whole: ``cr.Status = v1.WidgetStatus{Phase: v1.PhaseReady}``, ``&WidgetStatus{``), each with its offset."""
    key = re.compile(rf"^{re.escape(field_name)}\s*:\s*(.+)$", re.S)
    out = []
    for literal in re.finditer(rf"(?<![\w.])(?:\w+\.)?{re.escape(holder)}\{{", body):
        for argument, offset in _arguments(body, literal.end()):
            if (match := key.match(argument)) is not None:
                out.append((match.group(1), offset + match.start(1)))
    return out


def assigned(files: list[Path], root: Path, text: Callable[[Path], str | None], field_name: str) -> str | None:
    """The first site where the Go ``files`` assign ``Status.<field_name>`` (whatever the value), if any."""
    assign = re.compile(rf"\b(?:Status|\w*[Ss]tatus)\.{re.escape(field_name)}\s*=(?!=)")
    for path in files:
        body = text(path) or ""
        if f"tatus.{field_name}" in body and (match := assign.search(body)) is not None:
            return _located(root, path, body, match.start())
    return None


_TYPE_KEY = re.compile(r"\bType:\s*([^,\n}]+)")


def written_condition_types(  # noqa: PLR0917 - the reader's inputs, each by name at its one call
    files: list[Path],
    root: Path,
    text: Callable[[Path], str | None],
    kind: str,
    constant: ConstantLookup,
    item: str = "Condition",
) -> list[Written]:
    """The condition types the controller builds (``metav1.Condition{Type: ConditionReady, ...}``, or of the
    condition struct ``item`` the kind's status lists, ``v1.ClusterCondition{Type: ...}``, not a pod's or
    another object's condition it builds too); the value
    a constant, a literal or a parameter of the builder function), in the files that name the kind; those
    built in a function that uses the kind's type (``cr *v1.Kind``), or is called from one, when there are
    any (a project's other kinds, named in the same files, build theirs elsewhere)."""
    found: dict[str, Written] = {}
    scoped: dict[str, Written] = {}
    reader = _Sites(files, root, text, constant)
    uses = re.compile(rf"[.*\]]{re.escape(kind)}\b|\b{re.escape(kind)}\{{")
    names = "|".join(re.escape(n) for n in dict.fromkeys(("Condition", item)))
    literals = re.compile(rf"(?<![\w.])(?:\w+\.)?(?:{names})\{{")
    for path in files:
        body = text(path) or ""
        if kind not in body or "Condition{" not in body:
            continue
        for literal in literals.finditer(body):
            end = _arguments(body, literal.end())
            inside = body[literal.end() : end[-1][1] + len(end[-1][0])] if end else ""
            if (key := _TYPE_KEY.search(inside)) is None:
                continue
            at = literal.end() + key.start(1)
            in_kind = _in_function_using(files, text, path, at, uses)
            for written in reader.values(_strip_comment(key.group(1)), path, at, 0, set()):
                found.setdefault(written.value, written)
                if in_kind:
                    scoped.setdefault(written.value, written)
    return list((scoped or found).values())


def _function_at(body: str, at: int) -> tuple[str, str] | None:
    """(name, text) of the top-level function around ``at``."""
    function = None
    for match in _FUNC.finditer(body, 0, at):
        function = match
    if function is None:
        return None
    following = _FUNC.search(body, at)
    return function.group(1), body[function.start() : following.start() if following else len(body)]


def _in_function_using(
    files: list[Path], text: Callable[[Path], str | None], path: Path, at: int, uses: re.Pattern[str]
) -> bool:
    """The site's function uses the kind's type, or a function calling it does (one call up)."""
    around = _function_at(text(path) or "", at)
    if around is None:
        return False
    name, function_text = around
    if uses.search(function_text):
        return True
    call = re.compile(rf"(?<![\w])(?:[\w.]+\.)?{re.escape(name)}\(")
    for caller in files:
        body = text(caller) or ""
        if f"{name}(" not in body:
            continue
        for match in call.finditer(body):
            outer = _function_at(body, match.start())
            if outer is not None and outer[0] != name and uses.search(outer[1]):
                return True
    return False


# ``status.Replicas = sts.Status.ReadyReplicas``: a status count copied from a workload's ready pods.
_READY_COPY = re.compile(r"\b[Ss]tatus\.(\w+)\s*=(?!=)\s*(?:\w+\()?[\w.]*\bStatus\.(ReadyReplicas|AvailableReplicas)\b")
# The same count keyed in a literal (``KindStatus{ReadyNodes: sts.Status.ReadyReplicas}``, or a struct of the
# operator's own carrying it on: ``RolloutStatus{Updated: rs.Status.AvailableReplicas}``).
_READY_KEYED = re.compile(r"\b(\w+)\s*:\s*(?:\w+\()?[\w.]*\bStatus\.(ReadyReplicas|AvailableReplicas)\b")


def ready_copies(files: list[Path], root: Path, text: Callable[[Path], str | None], kind: str) -> dict[str, str]:
    """The status fields (by Go name) the controller fills with a workload's ready or available pod count
    (``status.Replicas = sts.Status.ReadyReplicas``, ``KindStatus{Replicas: sts.Status.ReadyReplicas}``), in
    the files that name the kind, each with its site; also through a field of a struct of the operator's own
    the count is keyed into first (``RolloutStatus{Updated: rs.Status.AvailableReplicas}``, then
    ``status.UpdatedReplicas = rollout.Updated``)."""
    found: dict[str, str] = {}
    carriers: dict[str, str] = {}  # a field keyed with the count anywhere -> where
    keyed: dict[str, str] = {}  # those keyed in the files that name the kind
    bodies = [(path, text(path) or "") for path in files]
    for path, body in bodies:
        if "Status.ReadyReplicas" not in body and "Status.AvailableReplicas" not in body:
            continue
        for match in _READY_KEYED.finditer(body):
            where = f"{match.group(2)} keyed at {_located(root, path, body, match.start())}"
            carriers.setdefault(match.group(1), where)
            if kind in body:
                keyed.setdefault(match.group(1), where)  # straight into a status literal (if a field of the kind's)
        if kind not in body:
            continue
        for match in _READY_COPY.finditer(body):
            where = f"{match.group(2)} copied at {_located(root, path, body, match.start())}"
            found.setdefault(match.group(1), where)
    if carriers:
        names = "|".join(re.escape(c) for c in carriers)
        carried = re.compile(rf"\b[Ss]tatus\.(\w+)\s*=(?!=)\s*(?:\w+\()?\w+\.({names})\b(?!\s*[.(])")
        for path, body in bodies:
            if kind not in body:
                continue
            for match in carried.finditer(body):
                where = f"{carriers[match.group(2)]}, copied at {_located(root, path, body, match.start())}"
                found.setdefault(match.group(1), where)
    for name, where in keyed.items():
        found.setdefault(name, where)
    return found


_ANNOTATION_READ = re.compile(
    r"\b(?:Annotations|GetAnnotations\(\))\[\s*([\w.]+|\"[^\"\n]*\")\s*\](?:\s*(?:==|!=)\s*([\w.]+|\"[^\"\n]*\"))?"
)


# A function that tells whether the operator leaves the object alone (``IsUnmanaged``, "skip reconciliation"):
# an annotation it reads stops the operator, not the pods.
_OPERATOR_SWITCH = re.compile(r"(?i)managed|reconcil|orchestrat")


@dataclass
class AnnotationRead:
    key: str
    compared: str | None  # the value the controller compares it with (``== HibernationOn``), if any
    evidence: str
    stops_operator: bool = False  # read where the operator decides to leave the object alone


def annotations_read(
    files: list[Path], root: Path, text: Callable[[Path], str | None], kind: str, constant: ConstantLookup
) -> list[AnnotationRead]:
    """The annotation keys the controller reads from an object's annotations (``obj.Annotations[key]``) in
    the files that name the kind, each with the value it is compared with."""
    found: dict[str, AnnotationRead] = {}
    reader = _Sites(files, root, text, constant)
    for path in files:
        body = text(path) or ""
        if kind not in body or "Annotations" not in body:
            continue
        for match in _ANNOTATION_READ.finditer(body):
            keys = list(reader.values(match.group(1), path, match.start(1), MAX_HOPS, set()))
            compared = (
                list(reader.values(match.group(2), path, match.start(2), MAX_HOPS, set())) if match.group(2) else []
            )
            function = _enclosing(body, match.start())
            for key in keys:
                where = f"read at {_located(root, path, body, match.start())}"
                read = found.setdefault(key.value, AnnotationRead(key.value, None, where))
                read.compared = read.compared or (compared[0].value if compared else None)
                read.stops_operator = read.stops_operator or _OPERATOR_SWITCH.search(function) is not None
    return list(found.values())


def _enclosing(body: str, at: int) -> str:
    """The name and doc comment of the function around ``at``."""
    function = None
    for match in _FUNC.finditer(body, 0, at):
        function = match
    if function is None:
        return ""
    above = body[: function.start()].rstrip("\n").split("\n")
    doc = []
    while above and above[-1].lstrip().startswith("//"):
        doc.append(above.pop())
    return function.group(1) + " " + " ".join(doc)


def _located(root: Path, path: Path, body: str, at: int) -> str:
    return f"{path.relative_to(root).as_posix()}:{body.count(chr(10), 0, at) + 1}"


def _strip_comment(expression: str) -> str:
    return re.sub(r"\s*//.*$", "", expression).strip().rstrip("{").strip()


class _Sites:
    def __init__(
        self, files: list[Path], root: Path, text: Callable[[Path], str | None], constant: ConstantLookup
    ) -> None:
        self.files = files
        self.root = root
        self.text = text
        self.constant = constant

    def where(self, path: Path, at: int) -> str:
        body = self.text(path) or ""
        return f"{path.relative_to(self.root).as_posix()}:{body.count(chr(10), 0, at) + 1}"

    def values(self, expression: str, path: Path, at: int, hops: int, seen: set[tuple[str, int]]) -> Iterator[Written]:
        if (str(path), at) in seen:
            return
        seen = seen | {(str(path), at)}
        expression = expression.strip()
        if _LITERAL.match(expression):
            value = expression[1:-1]
            if value.strip() and value.isprintable():
                body = self.text(path) or ""
                where = f"written at {self.where(path, at)}"
                yield Written(value, where, _on_failure_path(body, at), all_ready=_when_all_ready(body, at))
            return
        if "+" in expression and (joined := self.concatenation(expression, path)) is not None:
            body = self.text(path) or ""
            where = f"written at {self.where(path, at)} ({expression})"
            yield Written(joined, where, _on_failure_path(body, at), _when_all_ready(body, at))
            return
        if _POD_PHASE_COPY.match(expression):
            where = f"written at {self.where(path, at)} (the phase of a pod, copied)"
            yield from (Written(phase, where, failure=False) for phase in POD_PHASES)
            return
        name = _NAME.match(expression)
        if name is None:
            inner = _CONVERSION.match(expression)
            if inner is not None and "," not in inner.group(1):  # ``Phase(StatusReady)``
                # The same site, a shorter expression: not the loop ``seen`` guards against.
                yield from self.values(inner.group(1), path, at, hops, seen - {(str(path), at)})
            if (call := _CALL.match(expression)) is not None and hops < MAX_HOPS:
                yield from self.through_returns(call.group(1), hops, seen)
            return
        qualifier, identifier = name.group(1), name.group(2)
        constant = self.constant(qualifier, identifier, path)
        if constant is not None:
            body = self.text(path) or ""
            where = f"written at {self.where(path, at)} ({identifier})"
            yield Written(constant, where, _on_failure_path(body, at), _when_all_ready(body, at), identifier)
            return
        if qualifier is None and hops < MAX_HOPS:
            yield from self.through_callers(identifier, path, at, hops, seen)
            yield from self.through_locals(identifier, path, at, hops, seen)

    def concatenation(self, expression: str, path: Path) -> str | None:
        """``PhasePrefix + "Ready"``: string literals and constants joined; None when a part is neither (a
        message built with an error's text)."""
        parts = [p.strip() for p in _CONCATENATED.findall(expression) if p.strip() not in ("+", "")]
        values = []
        for part in parts:
            name = _NAME.match(part)
            value = (
                part[1:-1]
                if _LITERAL.match(part)
                else (self.constant(name.group(1), name.group(2), path) if name else None)
            )
            if value is None:
                return None
            values.append(value)
        joined = "".join(values)
        return joined if len(parts) >= 2 and joined.strip() and joined.isprintable() else None

    def through_locals(
        self, name: str, path: Path, at: int, hops: int, seen: set[tuple[str, int]]
    ) -> Iterator[Written]:
        """A local variable of the enclosing function (a state machine's ``phase = StateX`` in each branch,
        ``phase := r.nextPhase(obj)``): the values assigned to it in that function."""
        body = self.text(path) or ""
        function = None
        for match in _FUNC.finditer(body, 0, at):
            function = match
        if function is None or name in _parameter_names(function.group(2)):
            return
        following = _FUNC.search(body, at)
        end = following.start() if following else len(body)
        assign = re.compile(
            rf"(?<![\w.])(?:var[ \t]+)?{re.escape(name)}(?:[ \t]*,[ \t]*\w+)*(?:[ \t]+[\w.*]+)?"
            r"[ \t]*:?=(?!=)[ \t]*([^\n;]+)"
        )
        for match in assign.finditer(body, function.end(), end):
            yield from self.values(_strip_comment(match.group(1)), path, match.start(1), hops + 1, seen)

    def through_returns(self, callee: str, hops: int, seen: set[tuple[str, int]]) -> Iterator[Written]:
        """A call (``r.nextPhase(obj)``): the values the function of that name returns first."""
        name = callee.rpartition(".")[2]
        declared = re.compile(rf"^func\s*(?:\([^)]*\)\s*)?{re.escape(name)}\s*(?:\[[^\]]*\])?\(", re.M)
        for path in self.files:
            body = self.text(path) or ""
            if f"{name}(" not in body:
                continue
            for match in declared.finditer(body):
                following = _FUNC.search(body, match.end())
                end = following.start() if following else len(body)
                for returned in _RETURN.finditer(body, match.end(), end):
                    yield from self.values(_strip_comment(returned.group(1)), path, returned.start(1), hops + 1, seen)

    def through_callers(
        self, parameter: str, path: Path, at: int, hops: int, seen: set[tuple[str, int]]
    ) -> Iterator[Written]:
        """A parameter of the enclosing function: the argument each call of that function passes for it."""
        body = self.text(path) or ""
        function = None
        for match in _FUNC.finditer(body, 0, at):
            function = match
        if function is None:
            return
        names = _parameter_names(function.group(2))
        if parameter not in names:
            return
        index = names.index(parameter)
        call = re.compile(rf"(?<![\w.])(?:[\w.]+\.)?{re.escape(function.group(1))}\(")
        for caller in self.files:
            text = self.text(caller) or ""
            if function.group(1) + "(" not in text:
                continue
            for match in call.finditer(text):
                line_start = text.rfind("\n", 0, match.start()) + 1
                if _DECLARATION.match(text[line_start : match.start()]):
                    continue  # the declaration itself
                arguments = _arguments(text, match.end())
                if index < len(arguments):
                    argument, offset = arguments[index]
                    yield from self.values(argument, caller, offset, hops + 1, seen)


def _parameter_names(parameters: str) -> list[str]:
    """``ctx context.Context, a, b string, n int32`` -> [ctx, a, b, n]."""
    names = []
    for part in parameters.split(","):
        tokens = part.split()
        if tokens and tokens[0].isidentifier():
            names.append(tokens[0])
    return names


def _arguments(text: str, start: int) -> list[tuple[str, int]]:
    """The top-level arguments of a call whose ``(`` ends at ``start``, each with its offset."""
    out: list[tuple[str, int]] = []
    depth = 0
    begin = start
    index = start
    while index < len(text):
        char = text[index]
        if char in "\"`'":
            end = _string_end(text, index)
            index = end
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                out.append((text[begin:index], begin))
                return [(a.strip(), o + len(a) - len(a.lstrip())) for a, o in out]
            depth -= 1
        elif char == "," and depth == 0:
            out.append((text[begin:index], begin))
            begin = index + 1
        index += 1
    return []


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    index = start + 1
    while index < len(text):
        if text[index] == "\\" and quote != "`":
            index += 2
            continue
        if text[index] == quote:
            return index + 1
        if text[index] == "\n" and quote != "`":
            return index
        index += 1
    return index


def _block_header(body: str, at: int) -> str:
    """The header of the block the line at ``at`` sits in: the line of the first unmatched ``{`` before it."""
    depth = 0
    index = body.rfind("\n", 0, at)
    while index >= 0:
        char = body[index]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                return body[body.rfind("\n", 0, index) + 1 : index]
            depth -= 1
        index -= 1
    return ""


def _when_all_ready(body: str, at: int) -> bool:
    """The site's block runs when a ready count reaches the desired one (``if ready == desired {``,
    ``status.ReadyReplicas >= *spec.Replicas``)."""
    return _ALL_READY.search(_block_header(body, at)) is not None


def _on_failure_path(body: str, at: int) -> bool:
    """The site sits in an ``if err != nil`` block, or its block goes on to a warning event or an error log.

    The site's own error check (``if _, err = setStatus(...); err != nil {``) is the write's, not a failure
    of the object's: its block is skipped, and a later ``return ..., err`` says nothing."""
    line_start = body.rfind("\n", 0, at) + 1
    line_end = body.find("\n", at)
    line_end = len(body) if line_end < 0 else line_end
    site_line = body[line_start:line_end]
    header = _block_header(body, at)
    if _ERR_CHECK.search(header) and not _ASSIGNS_ERR.search(header):
        return True
    # The rest of the block, the site line's own block left out.
    depth = site_line.count("{") - site_line.count("}")
    after: list[str] = []
    for line in body[line_end + 1 :].splitlines():
        opened = depth
        depth += line.count("{") - line.count("}")
        if depth < 0:
            break
        if opened == 0:
            after.append(line)
    return any(_FAILURE_AFTER.search(line) for line in after)
