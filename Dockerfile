# kueuebot container image: a static binary on distroless, non-root.
#   docker build -t kueuebot:latest --build-arg VERSION=$(git describe --always) .
FROM golang:1.26 AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/kueuebot ./cmd/kueuebot

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kueuebot /kueuebot
USER 65532:65532
ENTRYPOINT ["/kueuebot"]
