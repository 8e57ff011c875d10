# ballot's container image: a static binary on distroless, as a user that is
# not root. Build and run:
#   docker build -t ballot .
#   docker run --rm -p 8080:8080 ballot
#   docker run --rm -p 8080:8080 -v /srv/elections:/srv/elections:ro ballot serve --data /srv/elections/current --watch
# Mount the directory holding the "current" link, not the link: a bind mount
# of a symbolic link is resolved once, at the container's start, so a later
# swap of the link would never be seen inside.
# The admin listener (/livez, /readyz, /metrics, POST /reload) listens on
# 0.0.0.0:9090 inside the container, for the orchestrator's probes: publish
# it to the host only on a private address, if at all.

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# The modules first, so that a change to the code reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo), so it runs on an image with no C library. The .git
# directory is not sent (.dockerignore), so `ballot version` says devel.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/ballot .

# distroless/static: CA certificates, time zone data, /etc/passwd with the
# nonroot user (65532), and nothing else (no shell).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ballot /usr/local/bin/ballot
USER nonroot:nonroot
ENV BALLOT_ADMIN_LISTEN=0.0.0.0:9090
EXPOSE 8080 9090
# No HEALTHCHECK: the image has no HTTP client to run one; orchestrators
# probe GET /livez (alive) and GET /readyz (serving a dataset) on port 9090.
ENTRYPOINT ["/usr/local/bin/ballot"]
CMD ["serve"]
