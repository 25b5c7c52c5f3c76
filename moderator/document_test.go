package moderator

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocumentRoundTrip stores every good fixture as JSON, rebuilds it and
// checks that nothing is lost.
func TestDocumentRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/workflows/*.yaml")
	n := 0
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "bad-") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			w := mustLoad(t, name)
			b1, err := json.Marshal(w.Document())
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b1, &doc); err != nil {
				t.Fatal(err)
			}
			w2, err := FromDocument(doc)
			if err != nil {
				t.Fatalf("FromDocument: %v", err)
			}
			b2, err := json.Marshal(w2.Document())
			if err != nil {
				t.Fatal(err)
			}
			if string(b1) != string(b2) {
				t.Errorf("round trip changed the document:\n%s\n%s", b1, b2)
			}
			if w2.Name != w.Name || w2.Form != w.Form || len(w2.Roles) != len(w.Roles) {
				t.Errorf("rebuilt %s/%s with %d roles, want %s/%s with %d", w2.Name, w2.Form, len(w2.Roles), w.Name, w.Form, len(w.Roles))
			}
			for _, r := range w.RoleOrder {
				if !reflect.DeepEqual(w.Statuses(r), w2.Statuses(r)) {
					t.Errorf("Statuses(%s) = %v after round trip, want %v", r, w2.Statuses(r), w.Statuses(r))
				}
			}
			for from, edges := range w.Graph {
				if len(w2.Graph[from]) != len(edges) {
					t.Errorf("node %s has %d edges after round trip, want %d", from, len(w2.Graph[from]), len(edges))
				}
			}
			// Routing works on the rebuilt workflow (conditions compiled).
			if _, err := w2.Route(RouteContext{}); err != nil {
				t.Errorf("Route on rebuilt workflow: %v", err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no good fixtures")
	}
}

func TestDocumentShape(t *testing.T) {
	w := mustLoad(t, "solve-issue.yaml")
	doc := w.Document()
	graph := doc["graph"].(map[string]any)
	first := graph["reviewer"].([]any)[1].(map[string]any)
	want := map[string]any{"role": End, "condition": nil, "prompt": "The review passed. Complete the workflow.", "location": nil}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("reviewer[1] = %#v, want %#v", first, want)
	}
	if c := doc["conditions"].(map[string]any)["notApproved"]; !reflect.DeepEqual(c, map[string]any{
		"description": "Reviewer rejected the implementation", "expression": "$last('reviewer').approved = false"}) {
		t.Errorf("conditions.notApproved = %#v", c)
	}

	s := mustLoad(t, "branch-handoff.yaml").Document()
	if _, ok := s["conditions"]; ok {
		t.Error("status-map document has conditions")
	}
	done := s["graph"].(map[string]any)["developer"].(map[string]any)["done"].(map[string]any)
	if done["location"] != "{{repoPath}}" || done["role"] != "tester" {
		t.Errorf("developer.done = %#v", done)
	}
	failed := s["graph"].(map[string]any)["developer"].(map[string]any)["failed"].(map[string]any)
	if failed["location"] != nil {
		t.Errorf("developer.failed location = %#v, want nil", failed["location"])
	}
	role := s["roles"].(map[string]any)["developer"].(map[string]any)
	for _, k := range []string{"description", "goal", "capabilities", "procedure", "output", "frontmatter"} {
		if _, ok := role[k]; !ok {
			t.Errorf("role document lacks %q", k)
		}
	}
}

func TestFromDocumentInvalid(t *testing.T) {
	w := mustLoad(t, "linear.yaml")
	doc := w.Document()
	doc["graph"].(map[string]any)["planner"].(map[string]any)["_"].(map[string]any)["role"] = "nobody"
	_, err := FromDocument(doc)
	var ve *ValidationError
	if !errors.As(err, &ve) || err.Error() != `<document>: unknown role "nobody"`+"\n"+`<document>: role "worker" is not reachable from $START` {
		t.Fatalf("FromDocument error = %v", err)
	}
	if _, err := FromDocument(nil); err == nil {
		t.Error("FromDocument(nil) succeeded")
	}
	if _, err := FromDocument(map[string]any{"name": make(chan int)}); err == nil {
		t.Error("FromDocument with a channel succeeded")
	}
}

func TestStatusesAndSchema(t *testing.T) {
	w := mustLoad(t, "review-loop.yaml")
	tests := []struct {
		role string
		want []string
	}{
		{"developer", []string{"review_needed"}},
		{"reviewer", []string{"rejected", "approved"}},
		{"ghost", nil},
	}
	for _, tt := range tests {
		if got := w.Statuses(tt.role); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Statuses(%s) = %v, want %v", tt.role, got, tt.want)
		}
	}
	if got := mustLoad(t, "linear.yaml").Statuses("planner"); !reflect.DeepEqual(got, []string{"_"}) {
		t.Errorf("Statuses(planner) = %v, want [_]", got)
	}
	s := w.Schema("developer")
	if s["type"] != "object" {
		t.Errorf("Schema(developer) = %v", s)
	}
	s["type"] = "mutated"
	if w.Schema("developer")["type"] != "object" {
		t.Error("Schema returned the workflow's own map, not a copy")
	}
	if w.Schema("ghost") != nil {
		t.Error("Schema(ghost) != nil")
	}
}
