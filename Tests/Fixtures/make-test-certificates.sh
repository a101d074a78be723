#!/usr/bin/env bash
# Makes the HTTPS tests' certificates in FOLDER with openssl: a certificate
# authority (ca.pem), a server certificate it signed for 127.0.0.1,
# localhost and api.promise-run.test (server.pem, server-key.pem; the last
# name resolves nowhere: the tests reach it with `resolve`), and a client certificate it
# signed (client.pem, client-key.pem). Valid for two days; nothing trusts
# the authority but the tests that name it.
#
#   make-test-certificates.sh FOLDER
set -euo pipefail
folder="$1"
mkdir -p "$folder"
cd "$folder"
quiet() { "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; "$@"; exit 1; }; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=promise-run test CA" \
    -keyout ca-key.pem -out ca.pem
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:api.promise-run.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > server.ext
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server-key.pem -out server.csr
quiet openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
    -extfile server.ext -out server.pem
printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' > client.ext
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=promise-run test client" -keyout client-key.pem -out client.csr
quiet openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
    -extfile client.ext -out client.pem
