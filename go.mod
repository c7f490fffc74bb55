module guard

go 1.25.0

require github.com/gofrs/flock v0.13.1

require (
	golang.org/x/sys v0.47.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
