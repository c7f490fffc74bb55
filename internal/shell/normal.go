package shell

import (
	"strings"
	"sync"
)

// Normal returns the simple command c in the normal form guard matches
// budget patterns against: the program's words with wrappers taken off
// (see Program), "docker-compose" read as "docker compose", "docker
// container VERB" as "docker VERB", docker's and compose's global options
// dropped; then its positional words, and after them its options, each
// with its value as --opt=value. So "sudo docker restart -t 5 web" and
// "docker container restart --time=5 web" both read
// "docker restart web -t=5", and a pattern need not know where options go.
// Words that are not literal are kept as written.
func (c Command) Normal() string {
	w := c.Program()
	if len(w) == 0 {
		return ""
	}
	w = append([]string(nil), w...)
	w[0] = baseName(w[0])
	if w[0] == "docker-compose" {
		w = append([]string{"docker", "compose"}, w[1:]...)
	}
	var pos, opts []string
	take := func(words []string, valued map[string]bool) {
		for i := 0; i < len(words); i++ {
			a := words[i]
			if a == "--" {
				pos = append(pos, words[i+1:]...)
				return
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				pos = append(pos, a)
				continue
			}
			if valued[a] && i+1 < len(words) {
				a += "=" + words[i+1]
				i++
			}
			opts = append(opts, a)
		}
	}
	if w[0] == "docker" {
		// docker [global options] [container] VERB ... and
		// docker [global options] compose [compose options] VERB ...
		pos = append(pos, "docker")
		rest := dropOptions(w[1:], options().dockerGlobal)
		if len(rest) > 0 && rest[0] == "container" {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "compose" {
			pos = append(pos, "compose")
			rest = dropOptions(rest[1:], options().composeGlobal)
		}
		take(rest, options().verbOptions)
	} else if w[0] == "systemctl" {
		take(w, options().systemctlOptions)
	} else {
		take(w, options().verbOptions)
	}
	if len(pos) > 0 && pos[0] == "systemctl" {
		// A unit is named with or without its .service suffix.
		for i := 2; i < len(pos); i++ {
			pos[i] = strings.TrimSuffix(pos[i], ".service")
		}
	}
	return strings.Join(append(pos, opts...), " ")
}

// TakesValue reports whether Normal reads the word after the option opt
// as its value (docker restart -t 5 web: 5 is -t's).
func TakesValue(opt string) bool {
	return options().verbOptions[opt] || options().dockerGlobal[opt] || options().composeGlobal[opt] || options().systemctlOptions[opt]
}

// dropOptions drops the options in front of words, with the values of the
// ones in valued.
func dropOptions(words []string, valued map[string]bool) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "-") && words[0] != "-" && words[0] != "--" {
		if valued[words[0]] && len(words) > 1 {
			words = words[1:]
		}
		words = words[1:]
	}
	return words
}

// The options that take a value as the next word, of docker, of compose,
// and of the verbs whose actions guard budgets (restart, stop, start, up,
// helm upgrade, ansible-playbook, systemctl, kubectl rollout restart).
// They are built on first use: guard run, which never reads a shell
// command, does not pay for them at start-up.
type optionSets struct{ dockerGlobal, composeGlobal, verbOptions, systemctlOptions map[string]bool }

var options = sync.OnceValue(func() optionSets {
	return optionSets{
		dockerGlobal:  set("--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"),
		composeGlobal: set("-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress", "--parallel"),
		verbOptions: set("-t", "--time", "--timeout", "-s", "--signal", "--scale", "--pull", "--wait-timeout",
			"-n", "--namespace", "-f", "--values", "--set", "--version", "-i", "--inventory", "-e", "--extra-vars", "-l", "--limit",
			"--kube-context", "--context", "-u", "--user"),
		systemctlOptions: set("-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property", "-s", "--signal", "--kill-whom",
			"--kill-value", "-n", "--lines", "-o", "--output", "--root", "--image", "--job-mode", "--state", "--what", "--timestamp",
			"--when", "--preset-mode", "--message", "--drop-in", "--reboot-argument"),
	}
})
