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

// SkipYAML routes on conditions over the whole chain: the worker ends the
// thread when an earlier planner step said to skip, so routing its head
// step alone would get it wrong.
const SkipYAML = `name: skip
roles:
  planner:
    frontmatter:
      type: object
      properties:
        skip: {type: boolean}
      required: [skip]
  worker:
    frontmatter:
      type: object
      properties:
        summary: {type: string}
conditions:
  skip:
    description: the planner said to skip
    expression: "$last('planner').skip = true"
graph:
  $START:
    - {role: planner, prompt: "Plan."}
  planner:
    - {role: worker, prompt: "Work."}
  worker:
    - {role: $END, condition: skip, prompt: "Skipped."}
    - {role: worker, prompt: "Again."}
`
