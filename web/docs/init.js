// Starts Swagger UI (self-hosted from swagger-ui-dist) on the vault's own OpenAPI document.
/* global SwaggerUIBundle, SwaggerUIStandalonePreset */
window.addEventListener('DOMContentLoaded', () => {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: false,
    tryItOutEnabled: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
    persistAuthorization: false,
  });
});
