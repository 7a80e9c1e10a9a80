#!/bin/sh
# Builds the broker's password file from the site's controller users (controllers.passwd, hashed by
# mosquitto_passwd) and the service's own user `sorting-service` with MQTT_PASSWORD, then runs Mosquitto.
set -eu
: "${MQTT_PASSWORD:?set MQTT_PASSWORD (the service's broker password)}"
umask 077
passwd=/mosquitto/data/passwd
if [ -s /mosquitto/config/controllers.passwd ]; then
  grep -v '^[[:space:]]*#' /mosquitto/config/controllers.passwd | grep -v '^[[:space:]]*$' > "$passwd" || : > "$passwd"
else
  : > "$passwd"
fi
mosquitto_passwd -b "$passwd" sorting-service "$MQTT_PASSWORD"
chown mosquitto:mosquitto "$passwd" 2>/dev/null || true
exec mosquitto -c /mosquitto/config/mosquitto.conf
