"""The images, built offline: the bot's run and build images and the steps every image is made
by (``bot_images``), and the service's platform and PostgreSQL images (``service_images``)."""
