package release

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// licenseRule recognises one licence by its text: every pattern in All
// must occur (case-insensitive, whitespace-insensitive) and none in None.
// Each rule carries texts it must and must not recognise (license_test.go
// enforces them).
type licenseRule struct {
	SPDX     string
	All      []string
	None     []string
	Match    []string
	NotMatch []string
}

// licenseRules are tried in order; the first that matches wins.
var licenseRules = []licenseRule{
	{
		SPDX: "GPL-2.0-only WITH Classpath-exception-2.0",
		All:  []string{"GNU General Public License", "version 2", "Classpath"},
		Match: []string{"This code is free software; you can redistribute it and/or modify it under the terms of the GNU General Public License " +
			"version 2 only, as published by the Free Software Foundation. Oracle designates this particular file as subject to the \"Classpath\" exception"},
		NotMatch: []string{"GNU GENERAL PUBLIC LICENSE Version 2, June 1991", "Licensed under the Apache License, Version 2.0"},
	},
	{
		SPDX:     "Apache-2.0",
		All:      []string{"Apache License", "Version 2.0"},
		Match:    []string{"Licensed under the Apache License, Version 2.0 (the \"License\")", "Apache License\n Version 2.0, January 2004\n http://www.apache.org/licenses/"},
		NotMatch: []string{"Apache License, Version 1.1", "Permission is hereby granted, free of charge"},
	},
	{
		SPDX:     "MIT",
		All:      []string{"Permission is hereby granted, free of charge", "THE SOFTWARE IS PROVIDED \"AS IS\""},
		Match:    []string{"The MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy ... THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY"},
		NotMatch: []string{"Licensed under the Apache License, Version 2.0", "Permission is hereby granted, free of charge (no warranty clause)"},
	},
	{
		SPDX:     "BSD-3-Clause",
		All:      []string{"Redistribution and use in source and binary forms", "Neither the name"},
		Match:    []string{"Redistribution and use in source and binary forms, with or without modification, are permitted ... Neither the name of the copyright holder"},
		NotMatch: []string{"Redistribution and use in source and binary forms, with or without modification, are permitted provided that the following conditions are met: 1. 2."},
	},
	{
		SPDX:     "BSD-2-Clause",
		All:      []string{"Redistribution and use in source and binary forms"},
		None:     []string{"Neither the name"},
		Match:    []string{"Redistribution and use in source and binary forms, with or without modification, are permitted provided that the following conditions are met: 1. 2."},
		NotMatch: []string{"Redistribution and use in source and binary forms ... Neither the name of the copyright holder"},
	},
	{
		SPDX:     "EPL-2.0",
		All:      []string{"Eclipse Public License", "2.0"},
		Match:    []string{"Eclipse Public License - v 2.0"},
		NotMatch: []string{"Eclipse Public License - v 1.0"},
	},
	{
		SPDX:     "EPL-1.0",
		All:      []string{"Eclipse Public License", "1.0"},
		Match:    []string{"Eclipse Public License - v 1.0"},
		NotMatch: []string{"Eclipse Public License - v 2.0"},
	},
}

var (
	spdxHeader = regexp.MustCompile(`SPDX-License-Identifier:\s*([A-Za-z0-9.+\-]+(?:\s+WITH\s+[A-Za-z0-9.+\-]+)?)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// classifyLicense names the licence of a licence file or header text ("" when
// no rule recognises it). An SPDX-License-Identifier line wins.
func classifyLicense(text string) string {
	if m := spdxHeader.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	norm := strings.ToLower(spaces.ReplaceAllString(text, " "))
	has := func(s string) bool { return strings.Contains(norm, strings.ToLower(spaces.ReplaceAllString(s, " "))) }
rules:
	for _, r := range licenseRules {
		for _, s := range r.All {
			if !has(s) {
				continue rules
			}
		}
		for _, s := range r.None {
			if has(s) {
				continue rules
			}
		}
		return r.SPDX
	}
	return ""
}

// licenseFiles are the names a repository's licence file goes by, in order.
var licenseFiles = []string{"LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "LICENSE-2.0.txt", "COPYING", "license.txt"}

// Attribution is the licence of one pair's source and where it was read.
type Attribution struct {
	License  string `json:"license"`
	Evidence string `json:"evidence"` // "header of <path>" or "<licence file> at <commit>"
}

// attributor finds the licence of source files in git clones, caching per
// repository and commit.
type attributor struct {
	find  func(repo string) (string, error) // git dir of a repository
	cache map[string]Attribution
}

// attribute reads the licence of path at commit in repo: the file's own
// header (SPDX line or a recognised licence notice) first, else the
// repository's licence file at that commit. It fails when neither names a
// licence: the release must not label code it cannot attribute.
func (a *attributor) attribute(ctx context.Context, repo, commit, path string) (Attribution, error) {
	gitDir, err := a.find(repo)
	if err != nil {
		return Attribution{}, err
	}
	show := func(p string) (string, bool) {
		out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "show", commit+":"+p).Output()
		return string(out), err == nil
	}
	if text, ok := show(path); ok {
		head := text[:min(len(text), 4000)]
		if l := classifyLicense(head); l != "" {
			return Attribution{License: l, Evidence: "header of " + path}, nil
		}
	}
	key := gitDir + "\x00" + commit
	if at, ok := a.cache[key]; ok {
		return at, nil
	}
	for _, f := range licenseFiles {
		if text, ok := show(f); ok {
			if l := classifyLicense(text); l != "" {
				at := Attribution{License: l, Evidence: f + " at " + commit}
				a.cache[key] = at
				return at, nil
			}
		}
	}
	return Attribution{}, fmt.Errorf("%w: no licence found for %s in %s at %s (no SPDX line or known notice in its header, no recognised %s)",
		errs.ErrNotFound, path, repo, commit, strings.Join(licenseFiles, "/"))
}
