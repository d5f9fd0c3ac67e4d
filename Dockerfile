# kueuebot's container image, for those with Docker: the same image make image
# builds without a daemon (hack/image; a test there reads this file). The
# build stage writes the image's whole file system with hack/image's rootfs
# command (the static binary for the target platform, built with CGO off,
# -trimpath and the version in ldflags; a CA bundle; passwd and group
# entries); the image copies it onto an empty base and runs as 65532.
#   docker build -t kueuebot:dev --build-arg VERSION=$(git describe --tags --always --dirty) .
FROM golang:1.26 AS build
ARG VERSION=dev
ARG TARGETOS=linux
ARG TARGETARCH=amd64
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN cd hack/image && go run ./cmd/rootfs -repo /src -version "${VERSION}" -platform "${TARGETOS}/${TARGETARCH}" -o /rootfs

FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
ENTRYPOINT ["/kueuebot"]
