package sandbox

import (
	"path/filepath"
	"strings"
)

// secretPrefixes, secretSuffixes and secretWords describe environment
// variable names (upper-cased) that may carry credentials.
var (
	secretPrefixes = []string{
		"AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "GCP_", "OPENAI_", "ANTHROPIC_",
		"HF_", "HUGGING_FACE_", "HUGGINGFACE_", "GITHUB_", "GH_", "GITLAB_",
		"NPM_", "DOCKER_", "VAULT_", "SSH_", "GPG_", "KUBE", "CODECOV_",
		"TWINE_", "PYPI_", "MAVEN_PASS", "GRADLE_PUBLISH", "COHERE_", "MISTRAL_",
		"GROQ_", "TOGETHER_", "DEEPSEEK_", "GEMINI_", "XAI_", "REPLICATE_",
		"GIT_", // also keeps tests from being pointed at another repository
	}
	secretSuffixes = []string{"_KEY", "_APIKEY", "_PASS", "_PASSWD", "_PAT", "_AUTH", "_DSN", "_URI_AUTH"}
	secretWords    = []string{"TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "API_KEY", "APIKEY", "PRIVATE", "SESSION", "COOKIE"}
	// overridden names are set by Run itself.
	overridden = []string{"HOME", "TMPDIR", "TMP", "TEMP", helperEnv}
)

// IsSecretEnv reports whether an environment variable of this name is
// withheld from sandboxed commands unless passed explicitly in Spec.Env.
func IsSecretEnv(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Environ builds a sandboxed command's environment: parent minus secrets
// and minus the variables Run sets, then HOME/TMPDIR/TMP/TEMP = private,
// then explicit (KEY=VALUE, later entries win). Malformed entries (no '=')
// are dropped.
func Environ(parent, explicit []string, private string) []string {
	var out []string
	index := map[string]int{}
	set := func(kv string) {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return
		}
		if i, ok := index[k]; ok {
			out[i] = kv
			return
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if IsSecretEnv(k) || isOverridden(k) {
			continue
		}
		set(kv)
	}
	if private != "" {
		for _, k := range []string{"HOME", "TMPDIR", "TMP", "TEMP"} {
			set(k + "=" + private)
		}
	}
	for _, kv := range explicit {
		set(kv)
	}
	return out
}

func isOverridden(k string) bool {
	for _, o := range overridden {
		if k == o {
			return true
		}
	}
	return false
}

// getenv returns the value of key in env.
func getenv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// lookPath finds file in the PATH of env, or relative to dir when it
// contains a slash, and reports whether it is an executable regular file.
func lookPath(file string, env []string, dir string) (string, bool) {
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p, isExecutable(p)
	}
	for _, d := range filepath.SplitList(getenv(env, "PATH")) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return p, true
		}
	}
	return file, false
}

// minimalKeep reports whether a variable passes into a MinimalEnv child.
func minimalKeep(name string) bool {
	switch name {
	case "PATH", "LANG", "LANGUAGE", "TZ", "JAVA_HOME", "TERM":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// minimal filters parent down to what minimalKeep passes.
func minimal(parent []string) []string {
	var out []string
	for _, kv := range parent {
		if k, _, _ := strings.Cut(kv, "="); minimalKeep(k) {
			out = append(out, kv)
		}
	}
	return out
}
