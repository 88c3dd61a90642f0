// Command gobaseline is the Go baseline of bench/bench_gobaseline.py (issue 32): what the Go predecessor
// library does per workload, written with github.com/itchyny/gojq, so wmap's whole-process cost can be
// compared with a compiled program doing the same evaluations on the same dump and definitions.
//
//	gobaseline DEFINITIONS.json DUMP.json > summary.jsonl
//
// DEFINITIONS.json is a JSON list of Karta documents (the definitions wmap resolves with, written by the
// benchmark from wmap's own loader, as wmap reads its compiled cache instead of the YAML); DUMP.json is a
// `kubectl get -o json` List. Every expression is compiled once per definition. For every top-level covered
// workload it evaluates the root's status (every matched status), each component's instance ids, pod
// template and scale (replicas, min, max), and places each pod of the workload on a component, instance
// and replica key with the component selectors. It prints one JSON line per workload:
//
//	{"namespace","kind","name","matched":[...],"components":{NAME:{"instances":N,"pods":N}},"unattributed":N}
//
// Bench infrastructure only: never shipped.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

var precedence = []string{"Failed", "Completed", "Suspending", "Resuming", "Suspended", "Degraded", "Running", "Initializing"}

type program struct {
	code *gojq.Code
	text string
}

// keysUnsorted stands in for jq's keys_unsorted, which gojq lacks: a Go map has no insertion order, so
// the keys come sorted (instance ids may then come in another order than wmap's; the agreement check
// compares pods per component, not instance order).
var keysUnsorted = gojq.WithFunction("keys_unsorted", 0, 0, func(v any, _ []any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%T has no keys", v)
	}
	keys := make([]any, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].(string) < keys[j].(string) })
	return keys
})

// compileErrors counts expressions that do not compile: the baseline then refuses to run (exit 1), since
// it would be doing less work than wmap.
var compileErrors int

func compile(v any) *program {
	text, ok := v.(string)
	if !ok || text == "" {
		return nil
	}
	query, err := gojq.Parse(text)
	if err == nil {
		var code *gojq.Code
		if code, err = gojq.Compile(query, keysUnsorted); err == nil {
			return &program{code, text}
		}
	}
	compileErrors++
	fmt.Fprintf(os.Stderr, "gobaseline: cannot compile %q: %v\n", text, err)
	return nil
}

// run gives every output, or ok=false when the expression raised an error.
func (p *program) run(input any) (outputs []any, ok bool) {
	iter := p.code.Run(input)
	for {
		v, more := iter.Next()
		if !more {
			return outputs, true
		}
		if err, isErr := v.(error); isErr {
			if halt, isHalt := err.(*gojq.HaltError); isHalt && halt.Value() == nil {
				return outputs, true
			}
			return nil, false
		}
		outputs = append(outputs, v)
	}
}

// text is jq's tostring: strings as they are, everything else compact JSON.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e17 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', 17, 64)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

type expectedCondition struct {
	typ, status, reason *string
}

type matcher struct {
	byPhase    *string
	conditions []expectedCondition
	expression *program
	expected   string
	broken     bool // an expression that does not compile never matches
}

type statusDef struct {
	phase                             *program
	conditions                        *program
	typeField, statusField, reasonFld string
	mappings                          map[string][]matcher
}

type component struct {
	name, parent            string
	depth                   int
	producesPods            bool
	instanceID              *program
	template                *program
	replicas, minR, maxR    *program
	status                  *statusDef
	matchLabels             map[string]string
	keyPath                 *program
	keyValue                *string
	direct                  bool // a type or instance selector of its own
	instanceSel, replicaSel *program
}

type definition struct {
	components []*component // depth-first from the root
	byName     map[string]*component
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return &s
}

func strOr(v any, fallback string) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fallback
}

func compileStatus(raw map[string]any) *statusDef {
	if raw == nil {
		return nil
	}
	sd := &statusDef{mappings: map[string][]matcher{}}
	if phase := obj(raw["phaseDefinition"]); phase != nil {
		sd.phase = compile(phase["path"])
	}
	if cd := obj(raw["conditionsDefinition"]); cd != nil {
		sd.conditions = compile(cd["path"])
		sd.typeField = strOr(cd["typeFieldName"], "type")
		sd.statusField = strOr(cd["statusFieldName"], "status")
		sd.reasonFld = strOr(cd["reasonFieldName"], "")
	}
	for _, status := range precedence {
		list, _ := obj(raw["statusMappings"])[strings.ToLower(status)].([]any)
		for _, item := range list {
			m := obj(item)
			out := matcher{byPhase: str(m["byPhase"])}
			conds, _ := m["byConditions"].([]any)
			for _, c := range conds {
				cm := obj(c)
				out.conditions = append(out.conditions, expectedCondition{str(cm["type"]), str(cm["status"]), str(cm["reason"])})
			}
			if expr := obj(m["byExpression"]); expr != nil {
				out.expression = compile(expr["expression"])
				out.broken = out.expression == nil
				out.expected = strOr(expr["expectedResult"], "")
			}
			sd.mappings[status] = append(sd.mappings[status], out)
		}
	}
	return sd
}

func compileComponent(raw map[string]any) *component {
	c := &component{name: strOr(raw["name"], ""), parent: strOr(raw["ownerRef"], "")}
	c.instanceID = compile(raw["instanceIdPath"])
	if spec := obj(raw["specDefinition"]); spec != nil {
		c.producesPods = true
		c.template = compile(spec["podTemplateSpecPath"])
		if c.template == nil {
			c.template = compile(spec["podSpecPath"])
		}
	}
	if scale := obj(raw["scaleDefinition"]); scale != nil {
		c.replicas = compile(scale["replicasPath"])
		c.minR = compile(scale["minReplicasPath"])
		c.maxR = compile(scale["maxReplicasPath"])
	}
	c.status = compileStatus(obj(raw["statusDefinition"]))
	if sel := obj(raw["podSelector"]); sel != nil {
		if ts := obj(sel["componentTypeSelector"]); ts != nil {
			c.direct = true
			if labels := obj(ts["matchLabels"]); len(labels) > 0 {
				c.matchLabels = map[string]string{}
				for k, v := range labels {
					c.matchLabels[k] = strOr(v, "")
				}
			}
			c.keyPath = compile(ts["keyPath"])
			c.keyValue = str(ts["value"])
		}
		if is := obj(sel["componentInstanceSelector"]); is != nil {
			c.direct = true
			c.instanceSel = compile(is["idPath"])
		}
		if rs := obj(sel["replicaSelector"]); rs != nil {
			c.replicaSel = compile(rs["keyPath"])
		}
	}
	return c
}

func compileDefinition(karta map[string]any) (*definition, [3]string) {
	structure := obj(obj(karta["spec"])["structureDefinition"])
	rootRaw := obj(structure["rootComponent"])
	kind := obj(rootRaw["kind"])
	ident := [3]string{strOr(kind["group"], ""), strOr(kind["version"], ""), strOr(kind["kind"], "")}
	all := []*component{compileComponent(rootRaw)}
	children, _ := structure["childComponents"].([]any)
	for _, child := range children {
		all = append(all, compileComponent(obj(child)))
	}
	d := &definition{byName: map[string]*component{}}
	seen := map[string]bool{}
	var visit func(c *component, depth int)
	visit = func(c *component, depth int) {
		if seen[c.name] {
			return
		}
		seen[c.name] = true
		c.depth = depth
		d.components = append(d.components, c)
		d.byName[c.name] = c
		for _, other := range all[1:] {
			if other.parent == c.name {
				visit(other, depth+1)
			}
		}
	}
	visit(all[0], 0)
	return d, ident
}

// -- the dump

type index struct {
	byUID map[string]map[string]any
	byKey map[string]map[string]any
}

func meta(o map[string]any) map[string]any { return obj(o["metadata"]) }

func groupOf(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func namespaceOf(o map[string]any) string {
	if ns, ok := meta(o)["namespace"].(string); ok && ns != "" {
		return ns
	}
	return "default"
}

func keyOf(group, kind, namespace, name string) string {
	return group + "|" + kind + "|" + namespace + "|" + name
}

func objectKey(o map[string]any) string {
	return keyOf(groupOf(strOr(o["apiVersion"], "")), strOr(o["kind"], ""), namespaceOf(o), strOr(meta(o)["name"], ""))
}

func uidOf(o map[string]any) string {
	if u, ok := meta(o)["uid"]; ok && u != nil && u != "" {
		return text(u)
	}
	return ""
}

func isPod(o map[string]any) bool { return o["kind"] == "Pod" && o["apiVersion"] == "v1" }

// parent follows the controller reference first, as wmap's snapshot does.
func (ix *index) parent(o map[string]any) map[string]any {
	refs, _ := meta(o)["ownerReferences"].([]any)
	var ordered []map[string]any
	for pass := 0; pass < 2; pass++ {
		for _, r := range refs {
			ref := obj(r)
			if ref == nil || ref["kind"] == nil || ref["kind"] == "" || (ref["name"] == nil && ref["uid"] == nil) {
				continue
			}
			if (ref["controller"] == true) == (pass == 0) {
				ordered = append(ordered, ref)
			}
		}
	}
	for _, ref := range ordered {
		uid := ""
		if ref["uid"] != nil && ref["uid"] != "" {
			uid = text(ref["uid"])
		}
		if found, ok := ix.byUID[uid]; ok && uid != "" {
			return found
		}
		found := ix.byKey[keyOf(groupOf(strOr(ref["apiVersion"], "")), text(ref["kind"]), namespaceOf(o), strOr(ref["name"], ""))]
		if found != nil && (uid == "" || uidOf(found) == "" || uidOf(found) == uid) {
			return found
		}
	}
	return nil
}

func (ix *index) owners(o map[string]any) []map[string]any {
	var chain []map[string]any
	current := o
	for depth := 0; depth < 64; depth++ { // a bound instead of cycle detection: generated dumps have none
		p := ix.parent(current)
		if p == nil {
			break
		}
		chain = append(chain, p)
		current = p
	}
	return chain
}

// -- evaluation

type placed struct{ component, instance, replica string }

type instances struct {
	ids   []string
	count int
	err   bool
}

func firstText(p *program, input any) (string, bool) {
	outputs, ok := p.run(input)
	if !ok || len(outputs) == 0 || outputs[0] == nil {
		return "", false
	}
	return text(outputs[0]), true
}

func evaluateStatus(sd *statusDef, w map[string]any) []string {
	matched := []string{}
	if sd == nil {
		return matched
	}
	var phase *string
	if sd.phase != nil {
		if out, ok := sd.phase.run(w); ok && len(out) > 0 && out[0] != nil {
			t := text(out[0])
			phase = &t
		}
	}
	byType := map[string]cond{}
	if sd.conditions != nil {
		out, _ := sd.conditions.run(w)
		var raw []any
		for _, o := range out {
			if list, isList := o.([]any); isList {
				raw = append(raw, list...)
			} else if o != nil {
				raw = append(raw, o)
			}
		}
		for _, item := range raw {
			m := obj(item)
			if m == nil || m[sd.typeField] == nil {
				continue
			}
			var c cond
			if v := m[sd.statusField]; v != nil {
				t := text(v)
				c.status = &t
			}
			if sd.reasonFld != "" && m[sd.reasonFld] != nil {
				t := text(m[sd.reasonFld])
				c.reason = &t
			}
			byType[text(m[sd.typeField])] = c
		}
	}
	for _, status := range precedence {
		for _, m := range sd.mappings[status] {
			if matches(m, w, phase, byType) {
				matched = append(matched, status)
				break
			}
		}
	}
	return matched
}

type cond struct{ status, reason *string }

func matches(m matcher, w map[string]any, phase *string, byType map[string]cond) bool {
	checks := 0
	if m.byPhase != nil {
		checks++
		if phase == nil || *phase != *m.byPhase {
			return false
		}
	}
	for _, want := range m.conditions {
		checks++
		found, ok := byType[*want.typ]
		if !ok {
			return false
		}
		if want.status != nil && (found.status == nil || *found.status != *want.status) {
			return false
		}
		if want.reason != nil && (found.reason == nil || *found.reason != *want.reason) {
			return false
		}
	}
	if m.broken {
		return false
	}
	if m.expression != nil {
		checks++
		out, ok := m.expression.run(w)
		if !ok || len(out) == 0 || text(out[0]) != m.expected {
			return false
		}
	}
	return checks > 0
}

// resolveComponents evaluates instance ids, scale and templates; it returns the instances per component.
func resolveComponents(d *definition, w map[string]any) map[string]*instances {
	out := map[string]*instances{}
	for _, c := range d.components {
		inst := &instances{count: 1}
		out[c.name] = inst
		if c.instanceID != nil {
			ids, ok := c.instanceID.run(w)
			if !ok {
				inst.err, inst.count = true, 0
				continue
			}
			seen := map[string]bool{}
			for _, id := range ids {
				t := ""
				if id != nil {
					t = text(id)
				}
				if t == "" || seen[t] {
					inst.err = true
					break
				}
				seen[t] = true
				inst.ids = append(inst.ids, t)
			}
			if inst.err {
				inst.count = 0
				continue
			}
			inst.count = len(inst.ids)
		}
		for _, p := range []*program{c.replicas, c.minR, c.maxR, c.template} {
			if p != nil {
				p.run(w)
			}
		}
	}
	return out
}

func placePod(d *definition, inst map[string]*instances, catchAll *component, pod map[string]any) (placed, bool) {
	var chosen *component
	chosenID, haveID := "", false
	deepest := -1
	labels := obj(meta(pod)["labels"])
	for _, c := range d.components {
		if inst[c.name].err || !c.direct {
			continue
		}
		if c.matchLabels != nil {
			ok := labels != nil
			for k, v := range c.matchLabels {
				if !ok {
					break
				}
				got, isStr := labels[k].(string)
				ok = isStr && got == v
			}
			if !ok {
				continue
			}
		}
		if c.keyPath != nil {
			t, ok := firstText(c.keyPath, pod)
			if !ok || (c.keyValue != nil && t != *c.keyValue) {
				continue
			}
		}
		id, idOK := "", false
		if c.instanceSel != nil {
			id, idOK = firstText(c.instanceSel, pod)
			known := false
			for _, have := range inst[c.name].ids {
				known = known || have == id
			}
			if !idOK || !known {
				continue
			}
		}
		if c.depth > deepest {
			chosen, chosenID, haveID, deepest = c, id, idOK, c.depth
		}
	}
	if chosen == nil {
		chosen = catchAll
	}
	if chosen == nil {
		return placed{}, false
	}
	if !haveID {
		if inst[chosen.name].count != 1 {
			return placed{}, false
		}
		if len(inst[chosen.name].ids) == 1 {
			chosenID = inst[chosen.name].ids[0]
		}
	}
	p := placed{component: chosen.name, instance: chosenID}
	for current := chosen; current != nil; current = d.byName[current.parent] {
		if current.replicaSel != nil {
			p.replica, _ = firstText(current.replicaSel, pod)
			break
		}
	}
	return p, true
}

type componentSummary struct {
	Instances int `json:"instances"`
	Pods      int `json:"pods"`
}

type summary struct {
	Namespace    string                      `json:"namespace"`
	Kind         string                      `json:"kind"`
	Name         string                      `json:"name"`
	Matched      []string                    `json:"matched"`
	Components   map[string]componentSummary `json:"components"`
	Unattributed int                         `json:"unattributed"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gobaseline DEFINITIONS.json DUMP.json")
		os.Exit(2)
	}
	var kartas []map[string]any
	if data, err := os.ReadFile(os.Args[1]); err != nil || json.Unmarshal(data, &kartas) != nil {
		fmt.Fprintf(os.Stderr, "gobaseline: cannot read definitions %s\n", os.Args[1])
		os.Exit(1)
	}
	byKind := map[string]map[string]*definition{} // group|kind -> version -> definition
	for _, karta := range kartas {
		d, ident := compileDefinition(karta)
		gk := ident[0] + "|" + ident[2]
		if byKind[gk] == nil {
			byKind[gk] = map[string]*definition{}
		}
		byKind[gk][ident[1]] = d
	}
	if compileErrors > 0 {
		fmt.Fprintf(os.Stderr, "gobaseline: %d expressions do not compile\n", compileErrors)
		os.Exit(1)
	}
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gobaseline: %v\n", err)
		os.Exit(1)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		fmt.Fprintf(os.Stderr, "gobaseline: %s: %v\n", os.Args[2], err)
		os.Exit(1)
	}
	data = nil
	var items []any
	if m := obj(doc); m != nil {
		if list, isList := m["items"].([]any); isList {
			items = list
		} else {
			items = []any{m}
		}
	}
	ix := &index{byUID: map[string]map[string]any{}, byKey: map[string]map[string]any{}}
	var objects []map[string]any
	for _, it := range items {
		o := obj(it)
		if o == nil || o["kind"] == nil || o["kind"] == "" {
			continue
		}
		objects = append(objects, o)
		if uid := uidOf(o); uid != "" {
			ix.byUID[uid] = o
		}
		ix.byKey[objectKey(o)] = o
	}
	covered := func(o map[string]any) bool {
		return byKind[groupOf(strOr(o["apiVersion"], ""))+"|"+strOr(o["kind"], "")] != nil
	}
	podsOf := map[string][]map[string]any{} // owner key -> pods
	var workloads []map[string]any
	for _, o := range objects {
		chain := ix.owners(o)
		if isPod(o) {
			for _, owner := range chain {
				k := objectKey(owner)
				podsOf[k] = append(podsOf[k], o)
			}
		}
		if covered(o) {
			top := true
			for _, owner := range chain {
				top = top && !covered(owner)
			}
			if top {
				workloads = append(workloads, o)
			}
		}
	}
	sort.SliceStable(workloads, func(i, j int) bool {
		a, b := workloads[i], workloads[j]
		ka := [3]string{namespaceOf(a), strOr(a["kind"], ""), strOr(meta(a)["name"], "")}
		kb := [3]string{namespaceOf(b), strOr(b["kind"], ""), strOr(meta(b)["name"], "")}
		for n := 0; n < 3; n++ {
			if ka[n] != kb[n] {
				return ka[n] < kb[n]
			}
		}
		return false
	})
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for _, w := range workloads {
		apiVersion := strOr(w["apiVersion"], "")
		versions := byKind[groupOf(apiVersion)+"|"+strOr(w["kind"], "")]
		version := apiVersion[strings.IndexByte(apiVersion, '/')+1:]
		d := versions[version]
		if d == nil {
			names := make([]string, 0, len(versions))
			for v := range versions {
				names = append(names, v)
			}
			sort.Strings(names)
			d = versions[names[len(names)-1]]
		}
		s := summary{Namespace: namespaceOf(w), Kind: strOr(w["kind"], ""), Name: strOr(meta(w)["name"], ""),
			Components: map[string]componentSummary{}}
		s.Matched = evaluateStatus(d.components[0].status, w)
		inst := resolveComponents(d, w)
		var catchAll *component
		candidates := 0
		for _, c := range d.components {
			if c.producesPods && !c.direct && !inst[c.name].err {
				candidates++
				if catchAll == nil {
					catchAll = c
				}
			}
			s.Components[c.name] = componentSummary{Instances: inst[c.name].count}
		}
		if candidates != 1 {
			catchAll = nil
		}
		pods := podsOf[objectKey(w)]
		if isPod(w) {
			pods = []map[string]any{w}
		}
		for _, pod := range pods {
			p, ok := placePod(d, inst, catchAll, pod)
			if !ok {
				s.Unattributed++
				continue
			}
			cs := s.Components[p.component]
			cs.Pods++
			s.Components[p.component] = cs
		}
		if err := enc.Encode(&s); err != nil {
			fmt.Fprintf(os.Stderr, "gobaseline: %v\n", err)
			os.Exit(1)
		}
	}
}
