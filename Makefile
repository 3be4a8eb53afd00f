# The two commands of the README: `make run` starts the service, `make test` runs every test.
# Each installs what it needs first (npm packages, Debian's chromium).

SHELL := /bin/bash
CHROMIUM ?= /usr/bin/chromium

.PHONY: deps npm-deps system-deps build run test bench-api bench-agent bench-operator images clean

deps: npm-deps system-deps

npm-deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json protocol/package.json api/package.json agent-pod/package.json operator/package.json
	npm ci --no-audit --no-fund
	@touch $@

# Agents drive Debian's Chromium (browser downloads are not possible, nor wanted); the chart
# tests unzip the helm binary that an npm package carries.
SYSTEM_PACKAGES := chromium fonts-liberation unzip
system-deps:
	@missing=""; \
	[ -x "$(CHROMIUM)" ] || missing="$$missing chromium fonts-liberation"; \
	command -v unzip >/dev/null || missing="$$missing unzip"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo; \
	  else echo "Missing Debian packages:$$missing; install them as root (apt-get install -y$$missing)" >&2; exit 1; fi; \
	  $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

build: npm-deps
	npm run build

run: deps build
	npm start

test: deps build
	npm test

bench-api: deps build
	npm run bench:api

bench-agent: deps build
	npm run bench:agent

bench-operator: deps build
	npm run bench:operator

# Container images need a container engine (docker, podman or buildah); none runs on the dev machines.
images: build
	scripts/build-images.sh

clean:
	rm -rf node_modules */node_modules */dist *.tsbuildinfo */*.tsbuildinfo api/src/generated
