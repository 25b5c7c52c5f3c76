package agent

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/builtins"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/config"
)

func newCmdLLM(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "llm",
		Usage:     "Answer with an OpenAI-compatible chat completion",
		ArgsUsage: protocolUsage,
		Description: "The endpoint is models.<model> (default: models.default) and its provider from\n" +
			"the configuration, or --base-url and --model. The API key is read from the\n" +
			"environment variable the provider names (apiKeyEnv) or --api-key-env, or\n" +
			"from the user-level .env file.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "API root `URL`, e.g. https://api.openai.com/v1"},
			&cli.StringFlag{Name: "model", Usage: "configured model alias, or the model `NAME` to send"},
			&cli.StringFlag{Name: "api-key-env", Usage: "environment `VARIABLE` holding the API key"},
			&cli.DurationFlag{Name: "timeout", Usage: "bound one request", Value: 10 * time.Minute},
		},
		Action: func(c *cli.Context) error {
			ep, err := llmEndpoint(c, f)
			if err != nil {
				return err
			}
			return serve(c.Context, f, &builtins.LLM{Endpoint: ep}, c.Args().Slice())
		},
	}
}

func llmEndpoint(c *cli.Context, f *cmdutil.Factory) (agentkit.LLMEndpoint, error) {
	wd, err := f.Getwd()
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	cfg, err := config.LoadDir(c.Context, wd, f.Getenv)
	if err != nil {
		return agentkit.LLMEndpoint{}, err
	}
	model := c.String("model")
	var ep agentkit.LLMEndpoint
	switch _, isAlias := cfg.Models[model]; {
	case c.String("base-url") != "":
		if model == "" {
			return ep, cmdutil.FlagErrorf("--base-url needs --model")
		}
		ep = agentkit.LLMEndpoint{BaseURL: c.String("base-url"), Model: model}
	case isAlias:
		if ep, err = cfg.Endpoint(model); err != nil {
			return ep, err
		}
	default:
		if ep, err = cfg.Endpoint(""); err != nil {
			return ep, fmt.Errorf("the llm agent has no endpoint: %w; or pass --base-url and --model", err)
		}
		if model != "" {
			ep.Model = model
		}
	}
	if name := c.String("api-key-env"); name != "" {
		ep.APIKey = cfg.Secret(name)
		if ep.APIKey == "" {
			return ep, fmt.Errorf("--api-key-env %s: the variable is not set (nor in %s)", name, cfg.Paths().DotenvPath())
		}
	}
	ep.Timeout = c.Duration("timeout")
	return ep, nil
}
