package config

import (
	"fmt"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
)

// LLMAgentEndpoint returns the endpoint of the built-in llm agent for its
// flags: --base-url and --model as given, or the configured model alias
// --model names, else models.default (with --model, when set, as the model
// name to send). --api-key-env names the variable holding the API key.
// The caller checks that --base-url comes with --model.
func (c *Config) LLMAgentEndpoint(flags builtins.LLMFlags) (agentkit.LLMEndpoint, error) {
	model := flags.Model
	var ep agentkit.LLMEndpoint
	switch _, isAlias := c.Models[model]; {
	case flags.BaseURL != "":
		ep = agentkit.LLMEndpoint{BaseURL: flags.BaseURL, Model: model}
	case isAlias:
		var err error
		if ep, err = c.Endpoint(model); err != nil {
			return ep, err
		}
	default:
		var err error
		if ep, err = c.Endpoint(""); err != nil {
			return ep, fmt.Errorf("the llm agent has no endpoint: %w; or pass --base-url and --model", err)
		}
		if model != "" {
			ep.Model = model
		}
	}
	if name := flags.APIKeyEnv; name != "" {
		ep.APIKey = c.Secret(name)
		if ep.APIKey == "" {
			return ep, fmt.Errorf("--api-key-env %s: the variable is not set (nor in %s)", name, c.Paths().DotenvPath())
		}
	}
	ep.Timeout = flags.Timeout
	return ep, nil
}
