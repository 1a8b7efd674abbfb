-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Ambiente" AS ENUM ('sandbox', 'producao');

-- CreateEnum
CREATE TYPE "ApiKeyStatus" AS ENUM ('active', 'inactive', 'revoked');

-- CreateEnum
CREATE TYPE "CreditKind" AS ENUM ('KYC', 'AUTH');

-- CreateEnum
CREATE TYPE "SessionKind" AS ENUM ('KYC', 'AUTH');

-- CreateEnum
CREATE TYPE "SessionStatus" AS ENUM ('created', 'in_progress', 'completed', 'expired');

-- CreateEnum
CREATE TYPE "VerificationStatus" AS ENUM ('processing', 'approved', 'rejected', 'manual_review', 'webhook_failed');

-- CreateEnum
CREATE TYPE "VerificationMode" AS ENUM ('FULL_KYC', 'SEM_DOC');

-- CreateEnum
CREATE TYPE "AuthStatus" AS ENUM ('processing', 'authenticated', 'rejected', 'expired');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'in_flight', 'succeeded', 'failed');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('queued', 'running', 'done', 'failed');

-- CreateTable
CREATE TABLE "tenants" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "webhook_secret_sandbox" TEXT NOT NULL,
    "webhook_secret_producao" TEXT NOT NULL,
    "webhook_url_sandbox" TEXT,
    "webhook_url_producao" TEXT,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "status" "ApiKeyStatus" NOT NULL DEFAULT 'active',
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_balances" (
    "tenant_id" UUID NOT NULL,
    "kind" "CreditKind" NOT NULL,
    "balance" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_balances_pkey" PRIMARY KEY ("tenant_id","kind")
);

-- CreateTable
CREATE TABLE "credit_ledger" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "kind" "CreditKind" NOT NULL,
    "delta" INTEGER NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "session_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "kind" "SessionKind" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "status" "SessionStatus" NOT NULL DEFAULT 'created',
    "country" TEXT NOT NULL DEFAULT 'WORLD',
    "external_id" TEXT,
    "webhook_url" TEXT,
    "documentos_aceitos" TEXT[],
    "redirect_uri" TEXT,
    "challenge" TEXT,
    "challenge_issued_at" TIMESTAMPTZ(3),
    "credit_reserved" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verifications" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "status" "VerificationStatus" NOT NULL DEFAULT 'processing',
    "final_status" "VerificationStatus",
    "modo" "VerificationMode" NOT NULL DEFAULT 'FULL_KYC',
    "country" TEXT NOT NULL,
    "external_id" TEXT,
    "document_type" TEXT,
    "score_composto" DOUBLE PRECISION,
    "score_face_match" DOUBLE PRECISION,
    "score_liveness" DOUBLE PRECISION,
    "score_antifraude" DOUBLE PRECISION,
    "ocr_nome" TEXT,
    "ocr_documento_numero" TEXT,
    "ocr_data_nascimento" TEXT,
    "document_expiry" TEXT,
    "motivos_rejeicao" TEXT[],
    "signals" JSONB,
    "reviewed_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth_attempts" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "external_id" TEXT NOT NULL,
    "status" "AuthStatus" NOT NULL DEFAULT 'processing',
    "error_code" TEXT,
    "score_facial" DOUBLE PRECISION,
    "score_liveness" DOUBLE PRECISION,
    "signals" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "auth_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "captures" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "frame_index" INTEGER NOT NULL DEFAULT 0,
    "mime" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "storage_key" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "phash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delete_after" TIMESTAMPTZ(3),

    CONSTRAINT "captures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "face_embeddings" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "external_id" TEXT NOT NULL,
    "verification_id" UUID,
    "model" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "face_embeddings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "ambiente" "Ambiente" NOT NULL,
    "type" TEXT NOT NULL,
    "verification_id" UUID,
    "auth_attempt_id" UUID,
    "body" TEXT NOT NULL,
    "url" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "response_status" INTEGER,
    "latency_ms" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "session_id" UUID,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "status" "JobStatus" NOT NULL DEFAULT 'queued',
    "run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 3,
    "lease_until" TIMESTAMPTZ(3),
    "locked_by" TEXT,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_ambiente_idx" ON "api_keys"("tenant_id", "ambiente");

-- CreateIndex
CREATE INDEX "credit_ledger_tenant_id_created_at_idx" ON "credit_ledger"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "credit_ledger_session_id_idx" ON "credit_ledger"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_tenant_id_ambiente_created_at_idx" ON "sessions"("tenant_id", "ambiente", "created_at");

-- CreateIndex
CREATE INDEX "sessions_status_expires_at_idx" ON "sessions"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "verifications_session_id_key" ON "verifications"("session_id");

-- CreateIndex
CREATE INDEX "verifications_tenant_id_ambiente_created_at_idx" ON "verifications"("tenant_id", "ambiente", "created_at");

-- CreateIndex
CREATE INDEX "verifications_tenant_id_ambiente_status_idx" ON "verifications"("tenant_id", "ambiente", "status");

-- CreateIndex
CREATE INDEX "verifications_tenant_id_ambiente_external_id_idx" ON "verifications"("tenant_id", "ambiente", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "auth_attempts_session_id_key" ON "auth_attempts"("session_id");

-- CreateIndex
CREATE INDEX "auth_attempts_tenant_id_ambiente_created_at_idx" ON "auth_attempts"("tenant_id", "ambiente", "created_at");

-- CreateIndex
CREATE INDEX "auth_attempts_tenant_id_ambiente_external_id_idx" ON "auth_attempts"("tenant_id", "ambiente", "external_id");

-- CreateIndex
CREATE INDEX "captures_phash_idx" ON "captures"("phash");

-- CreateIndex
CREATE INDEX "captures_delete_after_idx" ON "captures"("delete_after");

-- CreateIndex
CREATE UNIQUE INDEX "captures_session_id_kind_frame_index_key" ON "captures"("session_id", "kind", "frame_index");

-- CreateIndex
CREATE UNIQUE INDEX "face_embeddings_tenant_id_ambiente_external_id_key" ON "face_embeddings"("tenant_id", "ambiente", "external_id");

-- CreateIndex
CREATE INDEX "webhook_events_verification_id_idx" ON "webhook_events"("verification_id");

-- CreateIndex
CREATE INDEX "webhook_events_auth_attempt_id_idx" ON "webhook_events"("auth_attempt_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_due_at_idx" ON "webhook_deliveries"("status", "due_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_attempt_key" ON "webhook_deliveries"("event_id", "attempt");

-- CreateIndex
CREATE INDEX "jobs_status_run_at_idx" ON "jobs"("status", "run_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_balances" ADD CONSTRAINT "credit_balances_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auth_attempts" ADD CONSTRAINT "auth_attempts_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auth_attempts" ADD CONSTRAINT "auth_attempts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "captures" ADD CONSTRAINT "captures_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "face_embeddings" ADD CONSTRAINT "face_embeddings_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_verification_id_fkey" FOREIGN KEY ("verification_id") REFERENCES "verifications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_auth_attempt_id_fkey" FOREIGN KEY ("auth_attempt_id") REFERENCES "auth_attempts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the last line of defence for credits (Prisma has no CHECK constraints in the schema).
ALTER TABLE "credit_balances" ADD CONSTRAINT "credit_balances_balance_non_negative" CHECK ("balance" >= 0);
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_attempt_range" CHECK ("attempt" BETWEEN 1 AND 5);
