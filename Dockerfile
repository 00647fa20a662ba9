# The controller image, for those who build with Docker. `make image` builds the same image
# without a container runtime (hack/image).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /stagecoach ./cmd/stagecoach

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /stagecoach /usr/local/bin/stagecoach
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/stagecoach", "controller"]
