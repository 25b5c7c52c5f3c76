package agentkit

import (
	"strings"

	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/moderator"
)

// RolePrompt renders a role as markdown sections: "## Role" (name and
// description), "## Goal", "## Capabilities" (one bullet each),
// "## Procedure" and "## Output". Empty sections are left out; a nil role
// gives "".
func RolePrompt(role *moderator.Role) string {
	if role == nil {
		return ""
	}
	var sections []string
	roleText := "You are acting as the `" + role.Name + "` role of this workflow."
	if role.Name == "" {
		roleText = ""
	}
	if d := strings.TrimSpace(role.Description); d != "" {
		roleText = strings.TrimSpace(roleText + "\n\n" + d)
	}
	sections = appendSection(sections, "## Role", roleText)
	sections = appendSection(sections, "## Goal", role.Goal)
	var caps []string
	for _, c := range role.Capabilities {
		if c = text.OneLine(c); c != "" {
			caps = append(caps, "- "+c)
		}
	}
	sections = appendSection(sections, "## Capabilities", strings.Join(caps, "\n"))
	sections = appendSection(sections, "## Procedure", role.Procedure)
	sections = appendSection(sections, "## Output", role.Output)
	return strings.Join(sections, "\n\n")
}

func appendSection(sections []string, heading, text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return sections
	}
	return append(sections, heading+"\n\n"+text)
}

// PromptParts are the pieces of the prompt for one agent step.
type PromptParts struct {
	// Role is the role the agent plays; its Frontmatter schema drives the
	// output-format instruction.
	Role *moderator.Role
	// Task is the thread's start prompt.
	Task string
	// History is the already-rendered thread history (markdown, may be "").
	// It is placed under a level-2 heading, so it should use "###" and
	// deeper headings.
	History string
	// EdgePrompt is the moderator's rendered instruction for this step.
	EdgePrompt string
	// Location is the directory the step works in (may be "").
	Location string
	// CanSuspend says the role may yield to a human instead of answering
	// (version 1 workflows); the format instruction then says how.
	CanSuspend bool
}

// AssemblePrompt builds the full prompt for one step, in this order:
//
//   - the role prompt ([RolePrompt]);
//   - "## Task": the thread's start prompt;
//   - "## Thread History": the rendered history;
//   - "## Instruction for This Step": the moderator's edge prompt, followed
//     by the working directory when Location is set;
//   - the output-format instruction ([OutputFormatInstruction]) last, closest
//     to where the agent starts answering.
//
// Empty parts are left out. The result ends with a newline.
func AssemblePrompt(p PromptParts) string {
	var sections []string
	if rp := RolePrompt(p.Role); rp != "" {
		sections = append(sections, rp)
	}
	sections = appendSection(sections, "## Task", p.Task)
	sections = appendSection(sections, "## Thread History", p.History)
	instruction := strings.TrimSpace(p.EdgePrompt)
	if loc := strings.TrimSpace(p.Location); loc != "" {
		instruction = strings.TrimSpace(instruction + "\n\nWork in the directory `" + loc + "`.")
	}
	sections = appendSection(sections, "## Instruction for This Step", instruction)
	var schema map[string]any
	if p.Role != nil {
		schema = p.Role.Frontmatter
	}
	sections = append(sections, strings.TrimRight(OutputFormatInstruction(schema), "\n"))
	if p.CanSuspend {
		sections = append(sections, SuspendInstruction)
	}
	return strings.Join(sections, "\n\n") + "\n"
}

// CorrectionPrompt builds the message that asks an agent to answer again
// after its frontmatter was missing or did not validate. It quotes problems
// verbatim (one per line in a code block) and repeats the output-format
// instruction for schema.
func CorrectionPrompt(problems []string, schema map[string]any) string {
	var b strings.Builder
	b.WriteString("Your previous response could not be accepted: its YAML frontmatter was missing or did not satisfy the role's schema.\n\n")
	if len(problems) == 0 {
		b.WriteString("No further details were reported.\n\n")
	} else {
		b.WriteString("The validator reported:\n\n")
		content := strings.Join(problems, "\n")
		fence := fenceFor(content)
		b.WriteString(fence + "text\n" + content + "\n" + fence + "\n\n")
	}
	b.WriteString("Answer again. Begin your response with the corrected frontmatter block between two `---` lines, then repeat your markdown work.\n\n")
	b.WriteString(OutputFormatInstruction(schema))
	return b.String()
}

// SuspendInstruction tells an agent of a version 1 workflow how to stop and
// ask a human instead of answering.
const SuspendInstruction = "If you cannot go on without a human's answer, do not guess: answer with only this frontmatter instead, and the thread waits for the answer.\n\n" +
	"```markdown\n---\n$status: $SUSPEND\nreason: <your question for the human>\n---\n```"
