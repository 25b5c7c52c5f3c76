package chaintest

// PlanWorkYAML is a two-role workflow used by several test packages:
// planner → worker, where a blocked worker sends the thread back to the
// planner, so both roles can run twice.
const PlanWorkYAML = `name: plan-work
roles:
  planner:
    goal: Plan the work.
    frontmatter:
      type: object
      properties:
        $status: {const: planned}
        plan: {type: string}
      required: [$status, plan]
  worker:
    goal: Do the work.
    frontmatter:
      type: object
      properties:
        $status: {enum: [done, blocked]}
        notes: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: planner, prompt: "Plan the task."}
  planner:
    planned: {role: worker, prompt: "Do: {{plan}}"}
  worker:
    done: {role: $END, prompt: "Finished."}
    blocked: {role: planner, prompt: "Plan again: {{notes}}"}
`
